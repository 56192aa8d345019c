package dev.postbox.spring;

import dev.postbox.spring.internal.PostboxReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks an application event class for the outbox: {@code
 * applicationEventPublisher.publishEvent(event)} then writes the event as a job's payload, in the
 * publishing transaction. The job exists if and only if that transaction commits; publishing outside
 * a transaction fails with a {@link dev.postbox.NoTransactionException} (unless {@code
 * postbox.transaction-mode=optional}).
 *
 * <pre>{@code
 * @OutboxEvent(kind = "order-placed", idempotencyKey = "'order-placed-' + orderId")
 * public record OrderPlaced(long orderId, String sku) {}
 * }</pre>
 *
 * <p>Expressions are SpEL with the event as root object (also {@code #event}). Other in-process
 * {@code @EventListener}s still receive the event as usual.
 *
 * <p>To a broker, name the relay's kind and a configured destination: the event is then published
 * to that destination's topic, exchange or subject after the commit, like {@code relay.send(...)}.
 *
 * <pre>{@code
 * @OutboxEvent(kind = KafkaRelay.KIND, destination = "orders",
 *         idempotencyKey = "'order-placed-' + orderId", orderingKey = "'order-' + orderId")
 * public record OrderPlaced(long orderId, String sku) {}
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(PostboxReflectiveProcessor.class)
public @interface OutboxEvent {

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

    /** SpEL for the idempotency key, e.g. {@code "'order-placed-' + orderId"}. Empty: none. */
    String idempotencyKey() default "";

    /** SpEL for the ordering key. Empty: none. */
    String orderingKey() default "";

    /**
     * SpEL for the tenant the job belongs to (e.g. {@code "#order.tenantId"}); null or empty: the
     * {@code TenantResolver} bean's current tenant, else the default tenant. A tenant other than the
     * resolver's current one is refused ({@code IllegalArgumentException}).
     */
    String tenant() default "";

    /** Run no earlier than this after the commit, e.g. {@code "5s"}, {@code "PT5S"}; empty: at once. */
    String delay() default "";

    /** From -100 (last) to 100 (first); default 0. */
    int priority() default 0;
}
