package dev.postbox.internal;

import dev.postbox.AttemptLogLevel;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maintenance service: returns jobs whose lease expired (their worker died or hung) to the queue
 * with backoff, or dead-letters them when their attempt budget is spent. Runs on every node; row
 * locks with SKIP LOCKED keep nodes out of each other's way.
 */
final class Rescuer implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Rescuer.class);
    private static final int BATCH = 1000;

    private final DataSource dataSource;
    private final JobStore store;
    private final PostboxListener listener;
    private final PostboxConfig config;

    Rescuer(DataSource dataSource, JobStore store, PostboxListener listener, PostboxConfig config) {
        this.dataSource = dataSource;
        this.store = store;
        this.listener = listener;
        this.config = config;
    }

    @Override
    public void run() {
        try {
            rescueAll();
        } catch (SQLException | RuntimeException e) {
            log.warn("Rescuing expired leases failed; next pass in {}", config.rescueInterval(), e);
        }
    }

    /** Rescues until no expired lease is left; returns the totals. */
    JobStore.Rescued rescueAll() throws SQLException {
        int retried = 0;
        int dead = 0;
        while (true) {
            JobStore.Rescued pass;
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                pass = store.rescue(
                        c,
                        BATCH,
                        config.retryPolicy().base(),
                        config.retryPolicy().cap(),
                        config.attemptLog() != AttemptLogLevel.NONE);
            }
            retried += pass.retried();
            dead += pass.dead();
            if (pass.retried() + pass.dead() < BATCH) {
                break;
            }
        }
        if (retried + dead > 0) {
            log.info("Rescued expired leases: {} back to the queue, {} dead-lettered", retried, dead);
            listener.rescued(retried, dead);
        }
        return new JobStore.Rescued(retried, dead);
    }
}
