package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the leases of every job this engine holds, in one statement per chunk, so that long
 * jobs keep their claim while a dead worker's claims expire within the visibility timeout.
 *
 * <p>Each extended claim's local lease end moves to the time the statement was sent plus the
 * visibility timeout (what the job runner checks before it starts a job). A claim that has not
 * started and is no longer held (its lease lapsed and moved on while this process stalled) is
 * dropped without a write; a running one is left to its outcome write, which is fenced.
 */
final class Heartbeat implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);
    private static final int CHUNK = 5000;

    private final DataSource dataSource;
    private final LeaseStore store;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final PostboxConfig config;
    private final FailureBackoff failures;

    Heartbeat(
            DataSource dataSource,
            LeaseStore store,
            InFlight inFlight,
            PostboxListener listener,
            PostboxConfig config) {
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.listener = listener;
        this.config = config;
        this.failures = new FailureBackoff(log, "Heartbeat of held jobs");
    }

    @Override
    public void run() {
        List<ClaimedJob> held = inFlight.snapshot();
        if (held.isEmpty()) {
            return;
        }
        int lost = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            for (int from = 0; from < held.size(); from += CHUNK) {
                List<ClaimedJob> chunk = held.subList(from, Math.min(held.size(), from + CHUNK));
                long sentAt = System.nanoTime();
                LeaseStore.LeaseCheck check = store.heartbeat(c, chunk, config.visibilityTimeout());
                long leaseEnd = sentAt + config.visibilityTimeout().toNanos();
                for (ClaimedJob claimed : chunk) {
                    if (check.extended().contains(claimed.id())) {
                        claimed.extendedUntil(leaseEnd);
                    } else if (!check.held().contains(claimed.id()) && !claimed.hasStarted()) {
                        lost += drop(claimed);
                    }
                }
            }
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(
                    e,
                    "leases of the " + held.size() + " held jobs expire " + config.visibilityTimeout()
                            + " after their last extension; jobs with less than the start margin left are not"
                            + " started");
        }
        if (lost > 0) {
            log.info("{} claimed jobs lost their lease before they started; dropped without running them", lost);
        }
    }

    private int drop(ClaimedJob claimed) {
        if (!inFlight.holds(claimed)) {
            return 0; // its outcome was written meanwhile
        }
        inFlight.remove(claimed);
        listener.staleToken(claimed.id(), "heartbeat");
        return 1;
    }
}
