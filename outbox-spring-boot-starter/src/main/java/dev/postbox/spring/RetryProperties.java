package dev.postbox.spring;

import dev.postbox.RetryPolicy;
import java.time.Duration;

/**
 * Exponential backoff with full jitter and an attempt budget, as properties: the delay after
 * attempt n is {@code random(0, min(cap, base * 2^(n-1)))}. Shared by {@code postbox.retry.*} and
 * {@code postbox.http.retry.*}, which differ only in their defaults.
 */
public class RetryProperties {

    /** Backoff base: the ceiling of the first retry delay; it doubles per attempt up to the cap. */
    private Duration base;

    /** Backoff cap: the largest delay between two attempts. */
    private Duration cap;

    /** Attempts in all (the first included) before the job is dead-lettered. */
    private int maxAttempts;

    protected RetryProperties(Duration base, Duration cap, int maxAttempts) {
        this.base = base;
        this.cap = cap;
        this.maxAttempts = maxAttempts;
    }

    /** The policy these properties describe; invalid values fail with the field named. */
    public RetryPolicy toPolicy() {
        return RetryPolicy.custom().base(base).cap(cap).maxAttempts(maxAttempts).build();
    }

    public Duration getBase() {
        return base;
    }

    public void setBase(Duration base) {
        this.base = base;
    }

    public Duration getCap() {
        return cap;
    }

    public void setCap(Duration cap) {
        this.cap = cap;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }
}
