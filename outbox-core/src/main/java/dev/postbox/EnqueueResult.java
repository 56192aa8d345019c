package dev.postbox;

/**
 * The outcome of an enqueue.
 *
 * @param jobId the job's id; the existing job's id when the idempotency key was already known
 * @param created {@code true} when this call created the job, {@code false} when an earlier job
 *     with the same idempotency key was returned
 */
public record EnqueueResult(long jobId, boolean created) {}
