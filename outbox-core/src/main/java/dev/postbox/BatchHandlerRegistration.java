package dev.postbox;

import org.jspecify.annotations.Nullable;

/**
 * A {@link BatchJobHandler} for one job kind with its options: the largest batch it takes, and its
 * retry policy (the engine's default when none is given). A kind has either a plain handler or a
 * batch handler.
 *
 * <p>A worker that takes a job of the kind from the claimed jobs waiting in its process takes the
 * other waiting jobs of the kind with it, up to {@link #maxBatchSize()}; it never waits for more.
 * How many are waiting depends on the claim batch size and on how many jobs were due together.
 *
 * <pre>{@code
 * Postbox.builder(dataSource)
 *         .batchHandler(BatchHandlerRegistration.of("index-document", batch -> search.indexAll(batch))
 *                 .maxBatchSize(200));
 * }</pre>
 */
public final class BatchHandlerRegistration {

    /** The default largest batch. */
    public static final int DEFAULT_MAX_BATCH_SIZE = 100;

    /** The largest batch size accepted. */
    public static final int MAX_BATCH_SIZE_LIMIT = 10_000;

    private final String kind;
    private final BatchJobHandler handler;
    private final int maxBatchSize;
    private final @Nullable RetryPolicy retryPolicy;

    private BatchHandlerRegistration(
            String kind, BatchJobHandler handler, int maxBatchSize, @Nullable RetryPolicy retryPolicy) {
        this.kind = Require.notBlank(kind, "kind");
        this.handler = Require.notNull(handler, "handler");
        this.maxBatchSize = maxBatchSize;
        this.retryPolicy = retryPolicy;
    }

    /** A batch handler taking at most {@value #DEFAULT_MAX_BATCH_SIZE} jobs at a time. */
    public static BatchHandlerRegistration of(String kind, BatchJobHandler handler) {
        return new BatchHandlerRegistration(kind, handler, DEFAULT_MAX_BATCH_SIZE, null);
    }

    /**
     * The largest batch handed over, from 1 to {@value #MAX_BATCH_SIZE_LIMIT}.
     *
     * @throws IllegalArgumentException if out of range
     */
    public BatchHandlerRegistration maxBatchSize(int maxBatchSize) {
        if (maxBatchSize < 1 || maxBatchSize > MAX_BATCH_SIZE_LIMIT) {
            throw new IllegalArgumentException("maxBatchSize of batch handler '" + kind + "' must be from 1 to "
                    + MAX_BATCH_SIZE_LIMIT + ", got " + maxBatchSize);
        }
        return new BatchHandlerRegistration(kind, handler, maxBatchSize, retryPolicy);
    }

    public BatchHandlerRegistration retryPolicy(@Nullable RetryPolicy retryPolicy) {
        return new BatchHandlerRegistration(kind, handler, maxBatchSize, retryPolicy);
    }

    public String kind() {
        return kind;
    }

    public BatchJobHandler handler() {
        return handler;
    }

    public int maxBatchSize() {
        return maxBatchSize;
    }

    public @Nullable RetryPolicy retryPolicy() {
        return retryPolicy;
    }
}
