package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the leases of every job this engine holds, in one statement per chunk, so that long
 * jobs keep their claim while a dead worker's claims expire within the visibility timeout.
 */
final class Heartbeat implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);
    private static final int CHUNK = 5000;

    private final DataSource dataSource;
    private final JobStore store;
    private final InFlight inFlight;
    private final PostboxConfig config;

    Heartbeat(DataSource dataSource, JobStore store, InFlight inFlight, PostboxConfig config) {
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.config = config;
    }

    @Override
    public void run() {
        List<ClaimedJob> held = inFlight.snapshot();
        if (held.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            for (int from = 0; from < held.size(); from += CHUNK) {
                store.heartbeat(c, held.subList(from, Math.min(held.size(), from + CHUNK)), config.visibilityTimeout());
            }
        } catch (SQLException | RuntimeException e) {
            log.warn(
                    "Heartbeat for {} held jobs failed; leases expire in {} unless the next one succeeds",
                    held.size(),
                    config.visibilityTimeout(),
                    e);
        }
    }
}
