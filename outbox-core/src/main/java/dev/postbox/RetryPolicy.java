package dev.postbox;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter and an attempt budget. After attempt {@code n} failed, the
 * next run waits {@code random(0, min(cap, base * 2^(n-1)))}; once {@code maxAttempts} attempts
 * have failed the job is dead-lettered. Full jitter keeps jobs that failed together from retrying
 * together.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.custom()
 *         .base(Duration.ofMillis(500))
 *         .cap(Duration.ofMinutes(1))
 *         .maxAttempts(5)
 *         .build();
 * }</pre>
 */
public final class RetryPolicy {

    public static final Duration DEFAULT_BASE = Duration.ofSeconds(1);
    public static final Duration DEFAULT_CAP = Duration.ofMinutes(5);
    public static final int DEFAULT_MAX_ATTEMPTS = 8;

    private static final RetryPolicy DEFAULTS = custom().build();

    private final Duration base;
    private final Duration cap;
    private final int maxAttempts;

    private RetryPolicy(Builder b) {
        this.base = b.base;
        this.cap = b.cap;
        this.maxAttempts = b.maxAttempts;
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("cap (" + cap + ") may not be smaller than base (" + base + ")");
        }
    }

    /** Base 1 s, cap 5 min, 8 attempts. */
    public static RetryPolicy ofDefaults() {
        return DEFAULTS;
    }

    public static Builder custom() {
        return new Builder();
    }

    public static Builder from(RetryPolicy policy) {
        return new Builder().base(policy.base).cap(policy.cap).maxAttempts(policy.maxAttempts);
    }

    public Duration base() {
        return base;
    }

    public Duration cap() {
        return cap;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** The upper bound of the delay after the given failed attempt (1-based). */
    public Duration ceilingAfter(int failedAttempt) {
        int exponent = Math.max(0, Math.min(failedAttempt - 1, 40));
        long ceilingMillis = base.toMillis() * (1L << Math.min(exponent, 30));
        if (exponent > 30 || ceilingMillis < 0) {
            return cap;
        }
        return Duration.ofMillis(Math.min(cap.toMillis(), ceilingMillis));
    }

    /** A full-jitter delay after the given failed attempt: uniform in [0, ceiling]. */
    public Duration delayAfter(int failedAttempt, RandomGenerator random) {
        long ceiling = ceilingAfter(failedAttempt).toMillis();
        return Duration.ofMillis(ceiling == 0 ? 0 : random.nextLong(ceiling + 1));
    }

    /** Clamps a requested delay (for example an endpoint's Retry-After) to [0, cap]. */
    public Duration clamp(Duration requested) {
        if (requested.isNegative()) {
            return Duration.ZERO;
        }
        return requested.compareTo(cap) > 0 ? cap : requested;
    }

    @Override
    public String toString() {
        return "RetryPolicy[base=" + base + ", cap=" + cap + ", maxAttempts=" + maxAttempts + "]";
    }

    /** Builds a {@link RetryPolicy}; each setter validates its argument. */
    public static final class Builder {
        private Duration base = DEFAULT_BASE;
        private Duration cap = DEFAULT_CAP;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

        private Builder() {}

        public Builder base(Duration base) {
            this.base = Require.positive(base, "base");
            return this;
        }

        public Builder cap(Duration cap) {
            this.cap = Require.positive(cap, "cap");
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Require.positive(maxAttempts, "maxAttempts");
            return this;
        }

        public RetryPolicy build() {
            return new RetryPolicy(this);
        }
    }
}
