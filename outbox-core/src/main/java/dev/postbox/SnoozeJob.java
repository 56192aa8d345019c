package dev.postbox;

import java.time.Duration;

/**
 * Thrown by a handler to put the job back for later without spending an attempt, for example while
 * it waits for rate-limit permits.
 */
public class SnoozeJob extends RuntimeException {

    private final String reason;
    private final Duration delay;

    public SnoozeJob(String reason, Duration delay) {
        super(reason, null, false, false);
        this.reason = Require.notNull(reason, "reason");
        this.delay = Require.notNegative(delay, "delay");
    }

    /** Why the job waits: kept as the job's last error until it runs again. */
    public String reason() {
        return reason;
    }

    public Duration delay() {
        return delay;
    }
}
