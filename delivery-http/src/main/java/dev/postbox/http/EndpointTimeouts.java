package dev.postbox.http;

import dev.postbox.Require;
import java.time.Duration;

/**
 * Per-endpoint timeouts of one attempt.
 *
 * @param connectTimeout TCP (and TLS) connect timeout
 * @param readTimeout maximum inactivity while writing the request or reading the response
 * @param callTimeout the whole attempt, from DNS to the last response byte read
 */
public record EndpointTimeouts(Duration connectTimeout, Duration readTimeout, Duration callTimeout) {

    /** Connect 5 s, read 15 s, call 30 s. */
    public static final EndpointTimeouts DEFAULTS =
            new EndpointTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(30));

    /** Validates that each timeout is at least 1 ms (they are kept in whole milliseconds). */
    public EndpointTimeouts {
        requirePositive("connectTimeout", connectTimeout);
        requirePositive("readTimeout", readTimeout);
        requirePositive("callTimeout", callTimeout);
    }

    /**
     * These timeouts cut to {@code budget} (what is left of a job attempt's time limit), at least
     * 1 ms each: the call never runs past the attempt.
     */
    public EndpointTimeouts within(Duration budget) {
        Duration cap = budget.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : budget;
        return new EndpointTimeouts(min(connectTimeout, cap), min(readTimeout, cap), min(callTimeout, cap));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static void requirePositive(String name, Duration value) {
        Require.notNull(value, name);
        if (value.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, got " + value
                    + ": timeouts are kept in whole milliseconds, and 0 would mean no timeout at all");
        }
        if (value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " must be below " + Integer.MAX_VALUE + " ms, got " + value);
        }
    }
}
