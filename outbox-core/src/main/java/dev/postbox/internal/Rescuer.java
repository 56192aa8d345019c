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
 * Maintenance service: settles jobs whose lease expired (their worker died, hung or lost the
 * database). An attempt that had started is charged: the job goes back to the queue with the backoff
 * of its kind's retry policy ({@link RetryPolicies}: the policies of the kinds this process has
 * handlers for, the engine's for the others), or to the dead letters when its budget (the attempts
 * its kind's policy gave it at enqueue) is spent. One that never started (the job waited in a dead
 * worker's buffer) is refunded and back in line at once. Then it gives their claim order back to
 * jobs stranded waiting for an ordering key ({@link KeyWaitingStore}). Runs on every node; row locks with
 * SKIP LOCKED keep nodes out of each other's way.
 */
final class Rescuer implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Rescuer.class);
    private static final int BATCH = 1000;

    private final DataSource dataSource;
    private final LeaseStore store;
    private final PostboxListener listener;
    private final PostboxConfig config;
    private final FailureBackoff failures;
    private final RetryPolicies policies;

    Rescuer(
            DataSource dataSource,
            LeaseStore store,
            PostboxListener listener,
            PostboxConfig config,
            RetryPolicies policies) {
        this.policies = policies;
        this.dataSource = dataSource;
        this.store = store;
        this.listener = listener;
        this.config = config;
        this.failures = new FailureBackoff(log, "Rescuing expired leases");
    }

    @Override
    public void run() {
        try {
            rescueAll();
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(e, "expired leases wait for the next pass (every " + config.rescueInterval() + ")");
        }
    }

    /** Rescues until no expired lease is left; returns the totals. */
    LeaseStore.Rescued rescueAll() throws SQLException {
        int retried = 0;
        int dead = 0;
        int returned = 0;
        while (true) {
            LeaseStore.Rescued pass;
            try (Connection c = dataSource.getConnection()) {
                pass = store.rescue(
                        c,
                        BATCH,
                        policies,
                        NegativeControls.CHARGE_AT_CLAIM,
                        config.attemptLog() != AttemptLogLevel.NONE,
                        config.visibilityTimeout());
            }
            retried += pass.retried();
            dead += pass.dead();
            returned += pass.returned();
            if (pass.held() > 0) {
                log.info(
                        "{} expired lease(s) of ordered jobs held: their keys stay blocked for {} more while an"
                                + " old holder may still run them, then they are rescued",
                        pass.held(),
                        config.visibilityTimeout());
            }
            if (pass.retried() + pass.dead() + pass.returned() + pass.held() < BATCH) {
                break;
            }
        }
        releaseStrandedKeyWaiters();
        if (retried + dead + returned > 0) {
            log.info(
                    "Rescued expired leases: {} back to the queue, {} dead-lettered, {} returned without charge"
                            + " (their attempt had not started)",
                    retried,
                    dead,
                    returned);
        }
        if (retried + dead > 0) {
            listener.rescued(retried, dead);
        }
        if (returned > 0) {
            listener.rescuedUnstarted(returned);
        }
        return new LeaseStore.Rescued(retried, dead, returned);
    }

    /**
     * Gives their claim order back to jobs left waiting for an ordering key with no older job live
     * (the race {@link KeyWaitingStore} describes); normally none.
     */
    private void releaseStrandedKeyWaiters() throws SQLException {
        int released;
        try (Connection c = dataSource.getConnection()) {
            released = KeyWaitingStore.releaseStranded(c, BATCH);
        }
        if (released > 0) {
            log.debug(
                    "Gave {} job(s) waiting for an ordering key whose predecessor had left their claim order back",
                    released);
        }
    }
}
