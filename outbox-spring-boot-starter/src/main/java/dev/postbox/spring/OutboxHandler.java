package dev.postbox.spring;

import dev.postbox.spring.internal.PostboxReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs jobs of one kind. The method may take the payload (any type Jackson can read: a record, a
 * class, a {@code Map}) and/or the {@link dev.postbox.Job} for its metadata (id, attempt,
 * idempotency key, {@link dev.postbox.Job#stableKey() stable key}), in any order.
 *
 * <pre>{@code
 * @OutboxHandler(value = "reserve-stock", transactional = true)
 * void reserve(Reservation reservation, Job job) { ... }
 * }</pre>
 *
 * <p>Return normally for success; throw to fail the attempt: it is retried with exponential backoff
 * and full jitter, then dead-lettered. Throw {@link dev.postbox.PermanentJobFailure} to dead-letter
 * at once, {@link dev.postbox.RetryJobAfter} or {@link dev.postbox.SnoozeJob} to choose when it runs
 * again.
 *
 * <p>Each kind has exactly one handler: two methods for one kind fail the startup, naming both. A
 * job whose kind has no handler waits (logged and reported to {@link dev.postbox.PostboxListener}
 * listeners); it is not lost. Properties {@code postbox.handlers.<kind>.*} override the attributes.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(PostboxReflectiveProcessor.class)
public @interface OutboxHandler {

    /** The job kind this method handles. */
    String value();

    /**
     * Run inside the transaction that also completes the job under its fencing token, so that the
     * handler's writes on the outbox's {@code DataSource} commit exactly once.
     */
    boolean transactional() default false;

    /** Attempt budget; 0 means {@code postbox.retry.max-attempts}. */
    int maxAttempts() default 0;

    /** Backoff base, e.g. {@code "500ms"}; empty means {@code postbox.retry.base}. */
    String backoffBase() default "";

    /** Backoff cap, e.g. {@code "1m"}; empty means {@code postbox.retry.cap}. */
    String backoffCap() default "";

    /**
     * Time limit of each attempt, e.g. {@code "30s"}; empty means {@code postbox.worker.attempt-time-limit}
     * (a job's own limit, {@code JobRequest.Builder#timeLimit}, wins over both). An attempt past it is
     * given up: its thread is interrupted and it is retried or dead-lettered.
     */
    String timeLimit() default "";
}
