package dev.postbox;

import java.time.Duration;

/**
 * Thrown by a handler to fail this attempt and retry after the given delay (for example an
 * endpoint's {@code Retry-After}), instead of the policy's backoff. The attempt counts; the delay is
 * clamped to the policy's cap.
 */
public class RetryJobAfter extends RuntimeException {

    private final Duration delay;

    public RetryJobAfter(String message, Duration delay) {
        super(message);
        this.delay = Require.notNegative(delay, "delay");
    }

    public Duration delay() {
        return delay;
    }
}
