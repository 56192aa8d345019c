package dev.postbox;

import org.jspecify.annotations.Nullable;

/**
 * A handler for one job kind with its options: whether it runs in the completing transaction,
 * and its retry policy (the engine's default when none is given).
 *
 * <pre>{@code
 * HandlerRegistration.of("reserve-stock", job -> stock.reserve(job.payload(Reservation.class)))
 *         .transactional()
 *         .retryPolicy(RetryPolicy.custom().maxAttempts(3).build());
 * }</pre>
 */
public final class HandlerRegistration {

    private final String kind;
    private final JobHandler handler;
    private final boolean transactional;
    private final @Nullable RetryPolicy retryPolicy;

    private HandlerRegistration(
            String kind, JobHandler handler, boolean transactional, @Nullable RetryPolicy retryPolicy) {
        this.kind = Require.notBlank(kind, "kind");
        this.handler = Require.notNull(handler, "handler");
        this.transactional = transactional;
        this.retryPolicy = retryPolicy;
    }

    /** A plain handler: the job is completed after it returns, in a batch. */
    public static HandlerRegistration of(String kind, JobHandler handler) {
        return new HandlerRegistration(kind, handler, false, null);
    }

    /**
     * The same handler run inside a transaction on the engine's {@code DataSource} that also
     * completes the job under its fencing token: the handler's writes and the completion commit
     * together, or not at all.
     */
    public HandlerRegistration transactional() {
        return new HandlerRegistration(kind, handler, true, retryPolicy);
    }

    public HandlerRegistration transactional(boolean transactional) {
        return new HandlerRegistration(kind, handler, transactional, retryPolicy);
    }

    public HandlerRegistration retryPolicy(@Nullable RetryPolicy retryPolicy) {
        return new HandlerRegistration(kind, handler, transactional, retryPolicy);
    }

    public String kind() {
        return kind;
    }

    public JobHandler handler() {
        return handler;
    }

    public boolean isTransactional() {
        return transactional;
    }

    public @Nullable RetryPolicy retryPolicy() {
        return retryPolicy;
    }
}
