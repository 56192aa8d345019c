package dev.postbox;

import java.time.Duration;

/**
 * Engine events for metrics and logging. Every method has a no-op default; implementations must
 * be fast and must not throw.
 */
public interface PostboxListener {

    /** A listener that does nothing. */
    PostboxListener NO_OP = new PostboxListener() {};

    default void enqueued(String queue, String kind, boolean created) {}

    default void claimed(String queue, int count) {}

    default void completed(Job job, Duration duration) {}

    /** An attempt failed and the job will be retried after {@code retryIn}. */
    default void failed(Job job, Throwable error, Duration retryIn) {}

    /** The job was dead-lettered (budget spent or permanent failure). */
    default void dead(Job job, String reason) {}

    /** The job was put back without spending an attempt. */
    default void snoozed(Job job, Duration delay) {}

    /** No handler is registered for the job's kind; the job waits. */
    default void unknownKind(Job job) {}

    /** An operation presented a stale fencing token and changed nothing. */
    default void staleToken(long jobId, String operation) {}

    /**
     * Expired leases of started attempts were charged and returned to the queue, or their jobs were
     * dead-lettered, by the rescuer ({@code dead} also counts jobs that reached the cap on leases
     * expired before their attempt started).
     */
    default void rescued(int retried, int dead) {}

    /**
     * Expired leases whose attempt had not started (the jobs waited in the buffer of a worker that
     * died or stalled) were returned to the queue by the rescuer without charging an attempt.
     */
    default void rescuedUnstarted(int returned) {}
}
