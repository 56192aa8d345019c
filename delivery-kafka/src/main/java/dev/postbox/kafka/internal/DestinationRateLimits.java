package dev.postbox.kafka.internal;

import dev.postbox.kafka.KafkaDestination;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per-destination token buckets in this process: a destination with {@code maxPerSecond} gets that
 * many permits per second, with a burst of one second's worth.
 */
final class DestinationRateLimits {

    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    DestinationRateLimits(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Takes a permit: zero when granted, else how long until the next one. */
    Duration acquire(KafkaDestination destination) {
        if (destination.maxPerSecond() == 0) {
            return Duration.ZERO;
        }
        Bucket bucket = buckets.computeIfAbsent(
                destination.name(), n -> new Bucket(destination.maxPerSecond(), nanoClock.getAsLong()));
        return bucket.acquire(nanoClock.getAsLong());
    }

    private static final class Bucket {
        private final int perSecond;
        private final long nanosPerPermit;
        private double permits;
        private long refilledAt;

        Bucket(int perSecond, long now) {
            this.perSecond = perSecond;
            this.nanosPerPermit = 1_000_000_000L / perSecond;
            this.permits = perSecond;
            this.refilledAt = now;
        }

        synchronized Duration acquire(long now) {
            permits = Math.min(perSecond, permits + (now - refilledAt) / (double) nanosPerPermit);
            refilledAt = now;
            if (permits >= 1) {
                permits -= 1;
                return Duration.ZERO;
            }
            return Duration.ofNanos(Math.max(1_000_000L, (long) ((1 - permits) * nanosPerPermit)));
        }
    }
}
