package dev.postbox;

import dev.postbox.internal.Require;
import java.time.Duration;

/**
 * Thrown by a handler to put the job back for later without spending an attempt, for example while
 * it waits for rate-limit permits.
 */
public class SnoozeJob extends RuntimeException {

    private final Duration delay;

    public SnoozeJob(String reason, Duration delay) {
        super(reason, null, false, false);
        this.delay = Require.notNegative(delay, "delay");
    }

    public Duration delay() {
        return delay;
    }
}
