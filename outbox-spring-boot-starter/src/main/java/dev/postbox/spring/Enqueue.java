package dev.postbox.spring;

import dev.postbox.spring.internal.PostboxReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Writes a job when the annotated method returns normally, in the caller's transaction: the job
 * commits if and only if the method's business change commits. An exception thrown by the method
 * writes nothing.
 *
 * <pre>{@code
 * @Transactional
 * @Enqueue(kind = "reserve-stock", payload = "new com.example.Reservation(#result.id, #order.sku)",
 *         idempotencyKey = "'reserve-' + #result.id")
 * @Enqueue(kind = "order-webhook", orderingKey = "'order-' + #result.id")
 * public Order place(NewOrder order) { ... }
 * }</pre>
 *
 * <p>Expressions are SpEL, evaluated after the method returned: {@code #result} is the return value,
 * arguments are {@code #p0}, {@code #a0} or {@code #name} (compile with {@code -parameters} for
 * names), and {@code @bean} refers to a bean. The method must run inside a transaction on the
 * outbox's {@code DataSource} (annotate it or its caller with {@code @Transactional}); without one it
 * fails <em>before</em> running with a {@link dev.postbox.NoTransactionException}, unless {@code
 * postbox.transaction-mode=optional}.
 *
 * <p>The annotation is repeatable: one method may write several jobs. It works on Spring beans
 * called through their proxy (calls from the same object bypass it, as with {@code @Transactional}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(Enqueue.List.class)
@Reflective(PostboxReflectiveProcessor.class)
public @interface Enqueue {

    /** The job kind: selects the {@link OutboxHandler} that runs it. */
    String kind();

    /** The queue; {@code "default"} when empty. */
    String queue() default "";

    /**
     * The destination the job names ({@link dev.postbox.Job#endpoint()}): for a broker relay's kind
     * ({@code KafkaRelay.KIND}, {@code AmqpRelay.KIND}, {@code NatsRelay.KIND}) one of its configured
     * destinations. Empty: none.
     */
    String destination() default "";

    /** SpEL for the payload; empty means the return value ({@code #result}). */
    String payload() default "";

    /** SpEL for the idempotency key; a second job with the same key is not written. Empty: none. */
    String idempotencyKey() default "";

    /** SpEL for the ordering key; jobs sharing one run one at a time, in order. Empty: none. */
    String orderingKey() default "";

    /**
     * SpEL for the tenant the job belongs to (e.g. {@code "#order.tenantId"}); null or empty: the
     * {@code TenantResolver} bean's current tenant, else the default tenant. A tenant other than the
     * resolver's current one is refused ({@code IllegalArgumentException}).
     */
    String tenant() default "";

    /**
     * Tags to find the job by, each {@code "key=SpEL"}: a literal key, then the expression of its value
     * (e.g. {@code {"customer=#order.customerId", "request=#requestId"}}). A value that evaluates to
     * null leaves its tag out. Keys and values follow {@code JobRequest.Builder#tag}'s rules; a bad key
     * fails the startup, a bad value the enqueue.
     */
    String[] tags() default {};

    /** SpEL for a condition; the job is written only when it evaluates to {@code true}. */
    String condition() default "";

    /** Run no earlier than this after the commit, e.g. {@code "5s"}, {@code "PT5S"}; empty: at once. */
    String delay() default "";

    /** From -100 (last) to 100 (first); default 0. */
    int priority() default 0;

    /** Holds several {@link Enqueue} annotations on one method. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    @Reflective(PostboxReflectiveProcessor.class)
    @interface List {
        Enqueue[] value();
    }
}
