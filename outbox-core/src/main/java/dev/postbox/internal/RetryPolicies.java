package dev.postbox.internal;

import dev.postbox.BatchHandlerRegistration;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.RetryPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The retry decision, in one place: which policy a job's kind has (its handler's, else the
 * engine's), the attempt budget a new job of a kind gets, and how long a failed attempt waits. The
 * engine's runner, the rescuer (through {@link LeaseStore#rescue}, for an attempt whose lease expired)
 * and the enqueue path all ask this class; no other place computes a backoff.
 */
public final class RetryPolicies {

    private final RetryPolicy defaultPolicy;
    private final Map<String, RetryPolicy> byKind;

    public RetryPolicies(RetryPolicy defaultPolicy, Map<String, HandlerRegistration> handlers) {
        this(defaultPolicy, handlers, Map.of());
    }

    /** The engine's policy and the kinds' own: plain handlers' and batch handlers' registrations. */
    public RetryPolicies(
            RetryPolicy defaultPolicy,
            Map<String, HandlerRegistration> handlers,
            Map<String, BatchHandlerRegistration> batchHandlers) {
        this.defaultPolicy = defaultPolicy;
        Map<String, RetryPolicy> own = new LinkedHashMap<>();
        handlers.forEach((kind, registration) -> {
            RetryPolicy policy = registration.retryPolicy();
            if (policy != null) {
                own.put(kind, policy);
            }
        });
        batchHandlers.forEach((kind, registration) -> {
            RetryPolicy policy = registration.retryPolicy();
            if (policy != null) {
                own.put(kind, policy);
            }
        });
        this.byKind = Map.copyOf(own);
    }

    /** The policy of jobs of this kind: its handler's, else the engine's. */
    public RetryPolicy policyFor(String kind) {
        return byKind.getOrDefault(kind, defaultPolicy);
    }

    /** The attempt budget of a new job of this kind whose request sets none. */
    public int maxAttemptsFor(String kind) {
        return policyFor(kind).maxAttempts();
    }

    /** The kinds with a policy of their own, with it. */
    public Map<String, RetryPolicy> byKind() {
        return byKind;
    }

    /** The engine's policy, for kinds without their own. */
    public RetryPolicy defaultPolicy() {
        return defaultPolicy;
    }

    /**
     * How long the job waits after this failed attempt: the outcome's chosen delay clamped to the
     * policy's cap, else a full-jitter backoff; the policy is the outcome's when it names one, else
     * the kind's. (Whether the job is retried at all is its budget's: {@link Job#isLastAttempt()}.)
     */
    public Duration delay(Job job, JobOutcome.Retry retry, RandomGenerator random) {
        RetryPolicy policy = retry.policy() != null ? retry.policy() : policyFor(job.kind());
        Duration chosen = retry.delay();
        return chosen != null ? policy.clamp(chosen) : policy.delayAfter(job.attempt(), random);
    }

    /**
     * How long a job of this kind waits after a failed attempt that chose no delay of its own (the
     * rescuer's case: the attempt's lease expired): its kind's full-jitter backoff.
     */
    public Duration backoff(String kind, int failedAttempt, RandomGenerator random) {
        return policyFor(kind).delayAfter(failedAttempt, random);
    }
}
