package dev.postbox;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A handler for one job kind with its options: whether it runs in the completing transaction, its
 * retry policy and its time limit per attempt (the engine's defaults when none is given).
 *
 * <pre>{@code
 * HandlerRegistration.of("reserve-stock", job -> stock.reserve(job.payload(Reservation.class)))
 *         .transactional()
 *         .retryPolicy(RetryPolicy.custom().maxAttempts(3).build())
 *         .timeLimit(Duration.ofSeconds(30));
 * }</pre>
 */
public final class HandlerRegistration {

    private final String kind;
    private final JobHandler handler;
    private final boolean transactional;
    private final @Nullable RetryPolicy retryPolicy;
    private final @Nullable Duration timeLimit;

    private HandlerRegistration(
            String kind,
            JobHandler handler,
            boolean transactional,
            @Nullable RetryPolicy retryPolicy,
            @Nullable Duration timeLimit) {
        this.kind = Require.notBlank(kind, "kind");
        this.handler = Require.notNull(handler, "handler");
        this.transactional = transactional;
        this.retryPolicy = retryPolicy;
        this.timeLimit = timeLimit;
    }

    /** A plain handler: the job is completed after it returns, in a batch. */
    public static HandlerRegistration of(String kind, JobHandler handler) {
        return new HandlerRegistration(kind, handler, false, null, null);
    }

    /**
     * The same handler run inside a transaction on the engine's {@code DataSource} that also
     * completes the job under its fencing token: the handler's writes and the completion commit
     * together, or not at all.
     */
    public HandlerRegistration transactional() {
        return new HandlerRegistration(kind, handler, true, retryPolicy, timeLimit);
    }

    public HandlerRegistration transactional(boolean transactional) {
        return new HandlerRegistration(kind, handler, transactional, retryPolicy, timeLimit);
    }

    public HandlerRegistration retryPolicy(@Nullable RetryPolicy retryPolicy) {
        return new HandlerRegistration(kind, handler, transactional, retryPolicy, timeLimit);
    }

    /**
     * The time limit of each attempt of this kind's jobs that set none of their own ({@link
     * JobRequest.Builder#timeLimit}); {@code null}: the engine's ({@link
     * PostboxConfig.Builder#attemptTimeLimit}). An attempt past it is given up: see there.
     */
    public HandlerRegistration timeLimit(@Nullable Duration timeLimit) {
        return new HandlerRegistration(
                kind,
                handler,
                transactional,
                retryPolicy,
                timeLimit == null ? null : Require.positive(timeLimit, "timeLimit"));
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

    /** This kind's time limit per attempt, or null for the engine's. */
    public @Nullable Duration timeLimit() {
        return timeLimit;
    }
}
