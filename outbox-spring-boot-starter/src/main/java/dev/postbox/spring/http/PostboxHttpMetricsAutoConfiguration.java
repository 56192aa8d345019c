package dev.postbox.spring.http;

import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.spring.metrics.PostboxMetricsProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of webhook delivery ({@link PostboxHttpMetrics}) when the application has a
 * {@link MeterRegistry} and webhook delivery is configured. Off with {@code
 * postbox.metrics.enabled=false}; the endpoint and bucket tables are polled every {@code
 * postbox.metrics.queue-poll-interval}.
 */
@AutoConfiguration(
        after = PostboxHttpAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, HttpDeliveryModule.class})
@ConditionalOnBean({MeterRegistry.class, HttpDeliveryModule.class})
@ConditionalOnProperty(prefix = "postbox.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(PostboxMetricsProperties.class)
public final class PostboxHttpMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PostboxHttpMetrics postboxHttpMetrics(
            MeterRegistry registry, ObjectProvider<EndpointRegistry> endpoints, PostboxMetricsProperties properties) {
        return new PostboxHttpMetrics(
                registry,
                () -> endpoints.getObject().list(),
                () -> endpoints.getObject().rateFactors(),
                properties.getQueuePollInterval());
    }
}
