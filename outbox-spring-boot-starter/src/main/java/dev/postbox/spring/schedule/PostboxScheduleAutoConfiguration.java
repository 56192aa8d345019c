package dev.postbox.spring.schedule;

import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.cron.ScheduleMaterializer;
import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxCustomizer;
import dev.postbox.spring.PostboxProperties;
import dev.postbox.spring.internal.HandlerMethod;
import dev.postbox.spring.internal.HandlerMethodRegistry;
import dev.postbox.spring.internal.HandlerRegistrations;
import dev.postbox.spring.internal.PostboxDatabase;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Cron schedules on the Postbox engine: {@link dev.postbox.spring.PostboxSchedule @PostboxSchedule}
 * and {@code postbox.schedules.*} declarations (validated, then upserted at start-up after the
 * schema), handlers for schedules on plain bean methods, the {@link ScheduleRegistry} for schedules
 * declared by API, {@link PostboxScheduleAdmin} for the endpoint, and this node's {@link
 * ScheduleMaterializer} ({@code postbox.scheduler.enabled}, by default as {@code
 * postbox.worker.enabled}). Every {@link ScheduleMaterializer.FireListener} bean is told about fires
 * (the metrics use that).
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnBean(Postbox.class)
@EnableConfigurationProperties(PostboxScheduleProperties.class)
public final class PostboxScheduleAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ScheduleDeclarations postboxScheduleDeclarations(
            ConfigurableListableBeanFactory beanFactory, PostboxScheduleProperties properties) {
        return ScheduleDeclarations.of(ScheduledMethodScanner.scan(beanFactory), properties);
    }

    /** Makes each plain {@code @PostboxSchedule} method the handler of its schedule's job kind. */
    @Bean
    PostboxCustomizer postboxScheduleHandlers(
            ScheduleDeclarations declarations,
            ObjectProvider<HandlerMethodRegistry> handlerMethods,
            PostboxProperties properties,
            ConfigurableListableBeanFactory beanFactory) {
        return new PostboxCustomizer() {
            @Override
            public void customizePostbox(Postbox.Builder postbox) {
                HandlerMethodRegistry registry = handlerMethods.getIfAvailable();
                for (Map.Entry<String, ScheduledMethod> e :
                        declarations.methodHandlers().entrySet()) {
                    String kind = e.getKey();
                    ScheduledMethod m = e.getValue();
                    HandlerMethod clash =
                            registry == null ? null : registry.forKind(kind).orElse(null);
                    if (clash != null) {
                        throw new IllegalStateException("Job kind '" + kind + "' has two handlers: " + clash.describe()
                                + " (@OutboxHandler) and " + m.describe() + ". Put the @PostboxSchedule on the"
                                + " @OutboxHandler method, or give the schedule another kind.");
                    }
                    OutboxHandler handler = AnnotationUtils.synthesizeAnnotation(
                            Map.of("value", kind), OutboxHandler.class, m.method());
                    try {
                        postbox.handler(HandlerRegistrations.of(
                                new HandlerMethod(m.beanName(), m.beanType(), m.method(), handler),
                                properties,
                                beanFactory));
                    } catch (IllegalArgumentException ex) {
                        throw new IllegalStateException(
                                "Job kind '" + kind + "' of " + m.describe() + " already has a handler (a"
                                        + " HandlerRegistration bean or a PostboxCustomizer). Give the schedule"
                                        + " another kind.",
                                ex);
                    }
                }
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean
    ScheduleRegistry postboxScheduleRegistry(PostboxDatabase database) {
        return new ScheduleRegistry(database.dataSource());
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxScheduleAdmin postboxScheduleAdmin(ScheduleRegistry registry) {
        return new PostboxScheduleAdmin(registry);
    }

    /** Depends on the {@link Postbox} bean, which waits for every database initializer. */
    @Bean
    @ConditionalOnMissingBean
    PostboxScheduleRegistrar postboxScheduleRegistrar(
            Postbox postbox, ScheduleRegistry registry, ScheduleDeclarations declarations, PostboxScheduleAdmin admin) {
        return new PostboxScheduleRegistrar(registry, declarations, admin);
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional(SchedulerEnabledCondition.class)
    ScheduleMaterializerLifecycle postboxScheduleMaterializer(
            PostboxDatabase database,
            Outbox outbox,
            PostboxScheduleProperties properties,
            ObjectProvider<ScheduleMaterializer.FireListener> listeners,
            PostboxScheduleRegistrar registrar) {
        ScheduleMaterializer materializer = ScheduleMaterializer.builder(database.dataSource(), outbox)
                .pollInterval(properties.getScheduler().getPollInterval())
                .listener((name, fireAt, materializedAt, jobId) -> {
                    List<ScheduleMaterializer.FireListener> all =
                            listeners.orderedStream().toList();
                    for (ScheduleMaterializer.FireListener l : all) {
                        l.fired(name, fireAt, materializedAt, jobId);
                    }
                })
                .build();
        return new ScheduleMaterializerLifecycle(materializer);
    }
}
