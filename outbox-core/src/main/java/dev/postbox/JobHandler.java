package dev.postbox;

/**
 * Runs jobs of one kind. Return normally for success; throw to fail the attempt (it is retried
 * with backoff until the budget is spent, then dead-lettered). Throw {@link PermanentJobFailure} to
 * dead-letter at once, {@link RetryJobAfter} to choose the retry delay, or {@link SnoozeJob} to
 * run later without spending an attempt.
 *
 * <p>A handler registered as transactional runs inside a database transaction that also
 * completes the job, checked against the claim's fencing token: its writes commit if and only if
 * the job completes (exactly-once local effect).
 */
@FunctionalInterface
public interface JobHandler {

    void handle(Job job) throws Exception;
}
