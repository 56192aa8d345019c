package dev.postbox;

import java.time.Duration;

/**
 * Token buckets shared by every process of an installation: a bucket is a row of {@code
 * outbox_rate_bucket}, refilled from the database clock by the statement that takes its permits, so a
 * limit holds across all worker processes on all hosts, not per JVM. The webhook endpoints' limits
 * and the broker relays' per-destination limits live there. A module gets the engine's buckets when
 * it is {@linkplain PostboxModule#install installed} ({@link PostboxModule.Context#rateLimits()}).
 *
 * <p>Permits that a caller does not get come with a wait: the next slots of the bucket's line, one
 * every {@code 1 / perSecond}, handed out from the same row by every process. Snoozing the refused
 * jobs by those waits brings them back spread out at the limit's rate instead of all at once, and
 * without holding a worker thread.
 */
public interface RateLimits {

    /**
     * The bucket {@code key}. It is created full, or reconfigured, by its first {@link Bucket#take}
     * (not now: a module gets its buckets while the engine is built, maybe before the schema is
     * there); a changed rate or burst replaces the old one for every process, tokens above the new
     * burst are dropped.
     *
     * @param key a name with a prefix naming its owner, such as {@code "kafka:orders"} (the prefix
     *     keeps it apart from webhook endpoint names); at most {@value #MAX_KEY_LENGTH} characters
     * @param perSecond permits per second, more than 0
     * @param burst the most permits available at once after an idle period, at least 1
     * @throws IllegalArgumentException for a bad argument
     */
    Bucket bucket(String key, double perSecond, int burst);

    /** Longest bucket key. */
    int MAX_KEY_LENGTH = 200;

    /** One shared token bucket. */
    interface Bucket {

        String key();

        /**
         * Takes up to {@code wanted} permits without waiting (one database statement).
         *
         * @throws IllegalArgumentException if {@code wanted} is not positive
         * @throws IllegalStateException if the database cannot be reached
         */
        Permits take(int wanted);
    }

    /**
     * What {@link Bucket#take} got: {@code granted} permits, and for each one refused a wait until its
     * slot of the bucket's line ({@link #waitOf}).
     *
     * @param granted permits granted, from 0 to the number wanted
     * @param firstWait the wait of the first refused permit
     * @param spacing the time between two slots of the line ({@code 1 / perSecond})
     */
    record Permits(int granted, Duration firstWait, Duration spacing) {

        public Permits {
            Require.notNegative(granted, "granted");
            Require.notNegative(firstWait, "firstWait");
            Require.notNegative(spacing, "spacing");
        }

        /** How long the {@code refused}-th refused permit (from 0) should wait before trying again. */
        public Duration waitOf(int refused) {
            Require.notNegative(refused, "refused");
            return firstWait.plus(spacing.multipliedBy(refused));
        }
    }
}
