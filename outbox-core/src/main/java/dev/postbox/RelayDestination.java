package dev.postbox;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A named place a {@link BrokerRelay} sends to (a topic, an exchange and routing key, a subject),
 * with an optional rate limit. Jobs name the destination, never the broker's address, so a
 * destination can move without touching the jobs waiting for it. The static checks give every
 * relay's destinations the same rules and messages.
 */
public interface RelayDestination {

    /** The name jobs use: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit. */
    String name();

    /**
     * The most messages all processes together send to the destination per second (a token bucket
     * shared through the database, with a burst of one second's worth); 0 for no limit.
     */
    int maxPerSecond();

    /**
     * The name, or an {@link IllegalArgumentException} saying what a valid one is.
     *
     * @throws IllegalArgumentException if the name is null or not 1-100 letters, digits, '.', '_' or '-'
     */
    static String checkName(String name) {
        Require.notNull(name, "destination name");
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            throw new IllegalArgumentException("destination name '" + name + "' is not valid: use 1-100 letters,"
                    + " digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

    /**
     * A destination's {@link #maxPerSecond()} as given to its constructor: 0 (no limit) or more.
     *
     * @throws IllegalArgumentException if it is negative
     */
    static int checkMaxPerSecond(String name, int maxPerSecond) {
        if (maxPerSecond < 0) {
            throw new IllegalArgumentException("maxPerSecond of destination '" + name
                    + "' may not be negative (0 means no limit), got " + maxPerSecond);
        }
        return maxPerSecond;
    }

    /**
     * A rate limit given to a destination's {@code withRateLimit}: at least 1 per second.
     *
     * @throws IllegalArgumentException if it is less than 1
     */
    static int checkRateLimit(String name, int maxPerSecond) {
        if (maxPerSecond < 1) {
            throw new IllegalArgumentException(
                    "rate limit of destination '" + name + "' must be at least 1 per second, got " + maxPerSecond);
        }
        return maxPerSecond;
    }

    /**
     * The shared bucket of each rate-limited destination, by destination name, created (or
     * reconfigured) in the engine's rate limits as {@code <prefix>:<name>} with a burst of one
     * second's worth; destinations without a limit have none.
     *
     * @param prefix the broker's bucket prefix ("kafka", "amqp", …)
     */
    static Map<String, RateLimits.Bucket> buckets(
            RateLimits limits, String prefix, Collection<? extends RelayDestination> destinations) {
        Map<String, RateLimits.Bucket> created = new HashMap<>();
        for (RelayDestination d : destinations) {
            if (d.maxPerSecond() > 0) {
                created.put(d.name(), limits.bucket(prefix + ":" + d.name(), d.maxPerSecond(), d.maxPerSecond()));
            }
        }
        return Map.copyOf(created);
    }
}
