package dev.postbox;

/**
 * Runs claimed jobs of one kind together, as a {@link JobBatch}: for work that is cheaper in bulk,
 * such as sending many records to a broker and waiting once for its acknowledgements.
 *
 * <p>Each member keeps its own outcome. A member is done when {@link #handle} returns and it was
 * not failed through {@link JobBatch#fail}; a failed member is retried with backoff or
 * dead-lettered on its own, classified as a plain handler's exception would be ({@link
 * PermanentJobFailure}: dead at once, {@link RetryJobAfter}: its delay, {@link SnoozeJob}: later
 * without spending an attempt, any other: retried until its budget is spent). If {@code handle}
 * throws, every member not failed already fails with that exception.
 *
 * <p>The done members complete together, in one statement, each under its own fencing token: a
 * member whose lease was taken over meanwhile is fenced off and runs again under its new claim,
 * while the others complete. Delivery is at least once, as for plain handlers: a worker that dies
 * after the work and before that statement commits runs the batch's jobs again.
 */
@FunctionalInterface
public interface BatchJobHandler {

    void handle(JobBatch batch) throws Exception;
}
