package dev.postbox.spring.internal;

import dev.postbox.JobRequest;
import dev.postbox.NoTransactionException;
import dev.postbox.Postbox;
import dev.postbox.TransactionMode;
import dev.postbox.spring.OutboxEvent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Writes application events whose class is marked {@link OutboxEvent} as jobs, in the publishing
 * thread and transaction. Runs first among listeners, so that a failure (no transaction) reaches the
 * publisher before other listeners acted on the event.
 */
public final class OutboxEventBridge implements GenericApplicationListener {

    private final ObjectProvider<Postbox> postbox;
    private final BeanFactory beanFactory;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final Map<Class<?>, JobTemplate> templates = new ConcurrentHashMap<>();
    private final BrokerDestinationCheck destinations;

    public OutboxEventBridge(ObjectProvider<Postbox> postbox, BeanFactory beanFactory) {
        this.postbox = postbox;
        this.beanFactory = beanFactory;
        this.destinations = new BrokerDestinationCheck(beanFactory);
    }

    @Override
    public boolean supportsEventType(ResolvableType eventType) {
        Class<?> type = eventType.toClass();
        if (PayloadApplicationEvent.class.isAssignableFrom(type)) {
            Class<?> payloadType =
                    eventType.as(PayloadApplicationEvent.class).getGeneric().resolve();
            return payloadType != null && isOutboxEvent(payloadType);
        }
        return isOutboxEvent(type);
    }

    private static boolean isOutboxEvent(Class<?> type) {
        return AnnotatedElementUtils.hasAnnotation(type, OutboxEvent.class);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        Object payload = event instanceof PayloadApplicationEvent<?> p ? p.getPayload() : event;
        if (!isOutboxEvent(payload.getClass())) {
            return;
        }
        JobTemplate template = templates.computeIfAbsent(payload.getClass(), this::template);
        Postbox engine = postbox.getObject();
        if (engine.config().transactionMode() == TransactionMode.REQUIRED
                && !TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new NoTransactionException("Publishing " + payload.getClass().getName()
                    + " (an @OutboxEvent of kind '"
                    + template.kind() + "') needs an active transaction, so that the job commits or rolls back with"
                    + " your changes. Publish it from a @Transactional method, or set"
                    + " postbox.transaction-mode=optional to write it on its own.");
        }
        StandardEvaluationContext context = new StandardEvaluationContext(payload);
        context.setVariable("event", payload);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        if (template.applies(context)) {
            JobRequest request = template.toRequest(context, () -> payload);
            engine.outbox().enqueue(request);
        }
    }

    /**
     * Parses the annotation of an event class; fails with the class named when it is wrong (a broker
     * relay's destination included), before the first event of the class is written.
     */
    JobTemplate template(Class<?> eventType) {
        OutboxEvent annotation = AnnotatedElementUtils.findMergedAnnotation(eventType, OutboxEvent.class);
        if (annotation == null) {
            throw new IllegalArgumentException(eventType.getName() + " is not annotated with @OutboxEvent");
        }
        String where = where(annotation.kind(), eventType.getName());
        destinations.check(where, annotation.kind(), annotation.destination());
        return new JobTemplate(
                parser,
                where,
                annotation.kind(),
                annotation.queue(),
                annotation.destination(),
                "",
                annotation.idempotencyKey(),
                annotation.orderingKey(),
                annotation.tenant(),
                "",
                annotation.delay(),
                annotation.priority());
    }

    /** How messages name an {@code @OutboxEvent} annotation on a type. */
    static String where(String kind, String typeName) {
        return "@OutboxEvent(kind = \"" + kind + "\") on " + typeName;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public boolean supportsSourceType(@Nullable Class<?> sourceType) {
        return true;
    }
}
