package dev.postbox.http.webhook;

import dev.postbox.Require;
import java.time.Duration;

/**
 * When an endpoint that keeps failing is disabled: after at least {@code minFailures} consecutive
 * retryable failures (5xx, 408/425/429, timeouts, connection errors) spanning at least {@code
 * minDuration} without a single success. Both must hold, so a burst of failures during a short outage
 * never disables an endpoint, and neither does one old failure. Dead (4xx) answers do not count: they
 * reject a message, not the endpoint.
 *
 * @param minFailures consecutive failures needed, at least 1
 * @param minDuration how long the failure streak must last, not negative
 */
public record SustainedFailurePolicy(int minFailures, Duration minDuration) {

    /** 50 consecutive failures over at least 24 hours. */
    public static final SustainedFailurePolicy DEFAULTS = new SustainedFailurePolicy(50, Duration.ofHours(24));

    /** Never disables an endpoint for failing. */
    public static final SustainedFailurePolicy NEVER = new SustainedFailurePolicy(Integer.MAX_VALUE, Duration.ZERO);

    public SustainedFailurePolicy {
        Require.notNull(minDuration, "minDuration");
        if (minFailures < 1) {
            throw new IllegalArgumentException("minFailures must be at least 1, got " + minFailures);
        }
        if (minDuration.isNegative()) {
            throw new IllegalArgumentException("minDuration may not be negative, got " + minDuration);
        }
    }

    /** Whether a streak of {@code failures} lasting {@code streak} disables the endpoint. */
    public boolean disables(int failures, Duration streak) {
        return failures >= minFailures && streak.compareTo(minDuration) >= 0;
    }
}
