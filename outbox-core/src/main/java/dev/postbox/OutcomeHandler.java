package dev.postbox;

import java.time.Duration;

/**
 * A handler that answers each attempt's outcome as a value instead of throwing: {@link
 * JobOutcome#done()}, {@link JobOutcome#retry}, {@link JobOutcome#dead} or {@link
 * JobOutcome#snooze}. An exception it throws is still read as by a plain {@link JobHandler}.
 *
 * <pre>{@code
 * Postbox.builder(dataSource).handler("sync", (OutcomeHandler) job ->
 *         remote.push(job.payloadJson()) ? JobOutcome.done() : JobOutcome.retry("remote busy"));
 * }</pre>
 */
@FunctionalInterface
public interface OutcomeHandler extends JobHandler {

    /** Runs one attempt and answers its outcome (never null). */
    @Override
    JobOutcome attempt(Job job) throws Exception;

    /**
     * Runs {@link #attempt} for a caller that expects a plain handler (one that wraps another, say):
     * returns on done, and throws what a plain handler would throw for the other outcomes ({@link
     * SnoozeJob}, {@link PermanentJobFailure}, {@link RetryJobAfter}, or an {@link
     * IllegalStateException} for a retry with the policy's backoff). The outcome's details, its
     * cause and its own policy do not survive this: a wrapper keeps them by calling {@link
     * #attempt} and returning what it answers.
     */
    @Override
    default void handle(Job job) throws Exception {
        JobOutcome outcome = attempt(job);
        if (outcome instanceof JobOutcome.Snooze snooze) {
            throw new SnoozeJob(snooze.reason(), snooze.delay());
        }
        if (outcome instanceof JobOutcome.Dead dead) {
            throw new PermanentJobFailure(dead.reason());
        }
        if (outcome instanceof JobOutcome.Retry retry) {
            Duration delay = retry.delay();
            throw delay != null ? new RetryJobAfter(retry.reason(), delay) : new IllegalStateException(retry.reason());
        }
    }
}
