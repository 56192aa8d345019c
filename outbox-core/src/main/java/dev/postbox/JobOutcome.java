package dev.postbox;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt of a job came to, as a value: {@link #done() done}, {@link #retry retry} (after
 * the retry policy's backoff or a chosen delay), {@link #dead dead} (dead-lettered at once), or
 * {@link #snooze snooze} (run later without spending an attempt). An {@link OutcomeHandler} returns
 * it; a plain {@link JobHandler} returns normally (done) or throws, and the engine reads the
 * exception as the same value:
 *
 * <table>
 *   <caption>How the engine reads an attempt</caption>
 *   <tr><th>the handler</th><th>outcome</th></tr>
 *   <tr><td>returns normally</td><td>{@link Done}</td></tr>
 *   <tr><td>throws {@link SnoozeJob}</td><td>{@link Snooze} with its delay</td></tr>
 *   <tr><td>throws {@link PermanentJobFailure}</td><td>{@link Dead}</td></tr>
 *   <tr><td>throws {@link RetryJobAfter}</td><td>{@link Retry} after its delay</td></tr>
 *   <tr><td>throws anything else</td><td>{@link Retry} with the policy's backoff</td></tr>
 * </table>
 *
 * <p>The engine then makes the one retry decision: a {@link Retry} on the job's last attempt is
 * dead-lettered (the budget is the job's {@link Job#maxAttempts()}); otherwise it waits its {@link
 * Retry#delay() delay}, clamped to the policy's cap, or a full-jitter backoff of the policy. The
 * policy is the kind's ({@link HandlerRegistration#retryPolicy()}, else the engine's), unless the
 * outcome names its own ({@link Retry#withPolicy}, e.g. a webhook endpoint's).
 *
 * <pre>{@code
 * HandlerRegistration.of("charge", (OutcomeHandler) job -> {
 *     Answer a = gateway.charge(job.payload(Charge.class));
 *     if (a.ok()) return JobOutcome.done();
 *     if (a.declined()) return JobOutcome.dead("card declined: " + a.code());
 *     return JobOutcome.retry("gateway busy").after(a.retryAfter());
 * });
 * }</pre>
 */
public sealed interface JobOutcome permits JobOutcome.Done, JobOutcome.Retry, JobOutcome.Dead, JobOutcome.Snooze {

    /** The attempt succeeded: the job is complete. */
    static Done done() {
        return Done.INSTANCE;
    }

    /**
     * The attempt succeeded and produced {@code result}: stored with the finished job as JSON (through
     * the engine's codec, at most {@link PostboxConfig#maxResultBytes()}; a larger one dead-letters the
     * job) and readable through {@link PostboxAdmin#job} ({@link JobDetails#resultJson()}) and in {@code
     * outbox_job_archive.result}. Only the attempt that completes the job leaves one: a retried job
     * keeps its final attempt's, a dead-lettered job none.
     */
    static Done done(Object result) {
        return new Done(Require.notNull(result, "result"));
    }

    /** The attempt failed and may succeed later: retried after the policy's backoff. */
    static Retry retry(String reason) {
        return new Retry(reason, null, null, Details.NONE);
    }

    /** Retrying cannot help: the job is dead-lettered now, with this reason. */
    static Dead dead(String reason) {
        return new Dead(reason, null, Details.NONE);
    }

    /** Not now: the job runs again after {@code delay}, without spending an attempt. */
    static Snooze snooze(Duration delay, String reason) {
        return new Snooze(delay, reason);
    }

    /**
     * What an attempt leaves in the attempt log beyond its reason: the status code of a remote
     * answer and a JSON object with details (never a payload or a secret).
     *
     * @param statusCode the remote status code, or null
     * @param json a JSON object, or null
     */
    record Details(@Nullable Integer statusCode, @Nullable String json) {

        /** No details. */
        public static final Details NONE = new Details(null, null);
    }

    /** The attempt succeeded. */
    final class Done implements JobOutcome {
        private static final Done INSTANCE = new Done(null);

        private final @Nullable Object result;

        private Done(@Nullable Object result) {
            this.result = result;
        }

        /** What the attempt produced, stored with the job ({@link JobOutcome#done(Object)}); empty for none. */
        public Optional<Object> result() {
            return Optional.ofNullable(result);
        }

        @Override
        public String toString() {
            return result == null ? "Done" : "Done[result]";
        }
    }

    /**
     * The attempt failed; the job is retried while its budget lasts.
     *
     * @param reason what went wrong, stored as the job's last error
     * @param delay the chosen delay (clamped to the policy's cap), or null for the policy's backoff
     * @param policy the policy of this decision, or null for the kind's
     * @param details for the attempt log
     */
    record Retry(
            String reason,
            @Nullable Duration delay,
            @Nullable RetryPolicy policy,
            Details details) implements JobOutcome {

        public Retry {
            Require.notNull(reason, "reason");
            if (delay != null) {
                Require.notNegative(delay, "delay");
            }
            Require.notNull(details, "details");
        }

        /** The same retry after {@code delay} instead of the backoff (e.g. a {@code Retry-After}). */
        public Retry after(Duration delay) {
            return new Retry(reason, Require.notNegative(delay, "delay"), policy, details);
        }

        /** The same retry decided by {@code policy} (its backoff, its cap) instead of the kind's. */
        public Retry withPolicy(RetryPolicy policy) {
            return new Retry(reason, delay, Require.notNull(policy, "policy"), details);
        }

        public Retry withDetails(Details details) {
            return new Retry(reason, delay, policy, details);
        }

        /** {@link #delay()} as an Optional. */
        public Optional<Duration> chosenDelay() {
            return Optional.ofNullable(delay);
        }
    }

    /**
     * The job is dead-lettered now.
     *
     * @param reason why, stored as the dead letter's error
     * @param cause a short code stored with the dead letter (its {@code cause} column) by which it can
     *     be found again ({@link DeadLetterFilter#cause}), or null
     * @param details for the attempt log
     */
    record Dead(String reason, @Nullable String cause, Details details) implements JobOutcome {

        /** Longest {@link #cause()}. */
        public static final int MAX_CAUSE_LENGTH = 100;

        public Dead {
            Require.notNull(reason, "reason");
            if (cause != null && (cause.isBlank() || cause.length() > MAX_CAUSE_LENGTH)) {
                throw new IllegalArgumentException("cause must be 1 to " + MAX_CAUSE_LENGTH
                        + " characters (a short code such as 'postbox.endpoint-disabled'), was '" + cause + "'");
            }
            Require.notNull(details, "details");
        }

        /** The same outcome, stored with {@code cause} so that the dead letter can be found by it. */
        public Dead withCause(String cause) {
            return new Dead(reason, Require.notNull(cause, "cause"), details);
        }

        public Dead withDetails(Details details) {
            return new Dead(reason, cause, details);
        }
    }

    /**
     * The job runs again after {@code delay} without spending an attempt (e.g. while it waits for a
     * rate-limit permit).
     */
    record Snooze(Duration delay, String reason) implements JobOutcome {

        public Snooze {
            Require.notNegative(delay, "delay");
            Require.notNull(reason, "reason");
        }
    }
}
