package dev.postbox.spring.observation;

import dev.postbox.PostboxInstrumentation;
import dev.postbox.http.webhook.WebhookInstrumentation;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer Observations of enqueue, handler attempts and webhook sends ({@link
 * PostboxObservations}) when the application has an {@link ObservationRegistry} (e.g. through
 * {@code spring-boot-starter-actuator}). With a tracer on the classpath (e.g. {@code
 * micrometer-tracing-bridge-otel}) the trace context of the enqueueing code is stored with each job,
 * the handler's span is its child, and webhooks carry it on. Off with {@code
 * postbox.observations.enabled=false}.
 *
 * <p>The engine builder takes the {@link PostboxInstrumentation} bean, the webhook module the {@link
 * WebhookInstrumentation} bean; declare your own to replace them.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "postbox.observations.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PostboxObservationProperties.class)
public final class PostboxObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PostboxInstrumentation postboxInstrumentation(ObservationRegistry registry) {
        return new ObservedPostboxInstrumentation(registry);
    }

    /** Webhook sends, when the application has {@code postbox-delivery-http}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(WebhookInstrumentation.class)
    static final class Webhooks {

        @Bean
        @ConditionalOnMissingBean
        WebhookInstrumentation postboxWebhookInstrumentation(ObservationRegistry registry) {
            return new ObservedWebhookInstrumentation(registry);
        }
    }
}
