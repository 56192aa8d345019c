package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the start marks of running attempts in one statement per tick (every {@link
 * PostboxConfig#startMarkInterval()}): the jobs whose handler began since the last tick and is
 * still running. A job whose handler already returned needs no mark (its outcome is being written),
 * so short jobs are almost never marked and a burn-down writes next to nothing. Once marked, an
 * attempt is charged if its lease expires; before, it is refunded (and the job becomes suspect).
 */
final class StartMarks implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(StartMarks.class);
    private static final int CHUNK = 5000;

    private final DataSource dataSource;
    private final LeaseStore store;
    private final InFlight inFlight;
    private final FailureBackoff failures;

    StartMarks(DataSource dataSource, LeaseStore store, InFlight inFlight) {
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.failures = new FailureBackoff(log, "Recording the start of running attempts");
    }

    @Override
    public void run() {
        List<ClaimedJob> pending = new ArrayList<>();
        for (ClaimedJob claimed : inFlight.snapshot()) {
            if (claimed.awaitsStartMark()) {
                pending.add(claimed);
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            for (int from = 0; from < pending.size(); from += CHUNK) {
                List<ClaimedJob> chunk = pending.subList(from, Math.min(pending.size(), from + CHUNK));
                Set<Long> marked = store.markStarted(c, chunk, System.nanoTime());
                for (ClaimedJob claimed : chunk) {
                    if (marked.contains(claimed.id())) {
                        claimed.startMarked();
                    }
                }
            }
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(e, "attempts whose start is not recorded are not charged if their worker dies");
        }
    }
}
