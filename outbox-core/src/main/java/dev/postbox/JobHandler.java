package dev.postbox;

/**
 * Runs jobs of one kind. Return normally for success; throw to fail the attempt (it is retried
 * with backoff until the budget is spent, then dead-lettered). Throw {@link PermanentJobFailure} to
 * dead-letter at once, {@link RetryJobAfter} to choose the retry delay, or {@link SnoozeJob} to
 * run later without spending an attempt. A handler that decides its outcome as a value implements
 * {@link OutcomeHandler} instead (see {@link JobOutcome} for how the two map onto each other).
 *
 * <p>A handler registered as transactional runs inside a database transaction that also
 * completes the job, checked against the claim's fencing token: its writes commit if and only if
 * the job completes (exactly-once local effect).
 */
@FunctionalInterface
public interface JobHandler {

    void handle(Job job) throws Exception;

    /**
     * Runs one attempt and answers its outcome; what the engine calls. This default runs {@link
     * #handle} and answers {@link JobOutcome#done()}; an exception it throws is read as in {@link
     * JobOutcome}. {@link OutcomeHandler} implements this method instead of {@code handle}.
     */
    default JobOutcome attempt(Job job) throws Exception {
        handle(job);
        return JobOutcome.done();
    }
}
