package dev.postbox.spring.metrics;

import dev.postbox.Postbox;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics for Postbox (docs/operations.md, "Metrics") when the application has a {@link MeterRegistry}
 * (e.g. through {@code spring-boot-starter-actuator} or {@code spring-boot-micrometer-metrics}):
 * event counters and the job duration timer via {@link PostboxMetricsListener}, which the starter's
 * composite listener calls like any other {@code PostboxListener} bean, and the queue gauges via
 * {@link PostboxQueueMetrics}, schedule fires and lag via {@link PostboxScheduleMetrics}. Off with {@code postbox.metrics.enabled=false}.
 */
@AutoConfiguration(
        afterName = {
            "dev.postbox.spring.PostboxAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, Postbox.class})
@ConditionalOnProperty(prefix = "postbox.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(PostboxMetricsProperties.class)
public final class PostboxMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PostboxMetricsListener postboxMetricsListener(MeterRegistry registry, PostboxMetricsProperties properties) {
        return new PostboxMetricsListener(registry, properties.isDurationHistogram());
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxQueueMetrics postboxQueueMetrics(
            Postbox postbox, MeterRegistry registry, PostboxMetricsProperties properties) {
        return new PostboxQueueMetrics(postbox.admin(), registry, properties.getQueuePollInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxTenantMetrics postboxTenantMetrics(
            Postbox postbox, MeterRegistry registry, PostboxMetricsProperties properties) {
        return new PostboxTenantMetrics(
                postbox.admin()::tenants, registry, properties.getTenants(), properties.getQueuePollInterval());
    }

    /** {@link PostboxMetrics#STUCK_THREADS}, read from the engine (no query). */
    @Bean
    @ConditionalOnMissingBean(name = "postboxStuckThreadsMetrics")
    MeterBinder postboxStuckThreadsMetrics(Postbox postbox) {
        return registry -> Gauge.builder(PostboxMetrics.STUCK_THREADS, postbox, Postbox::stuckThreads)
                .description("Handler threads stuck in attempts given up for their time limit")
                .register(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxScheduleMetrics postboxScheduleMetrics(MeterRegistry registry) {
        return new PostboxScheduleMetrics(registry);
    }
}
