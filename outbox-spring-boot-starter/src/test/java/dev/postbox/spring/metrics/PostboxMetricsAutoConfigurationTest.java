package dev.postbox.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

class PostboxMetricsAutoConfigurationTest {

    /** An engine on a database that is not there: never started, so never connected. */
    static Postbox unreachablePostbox() {
        return Postbox.builder(new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1"))
                .build();
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PostboxMetricsAutoConfiguration.class))
            .withBean(Postbox.class, PostboxMetricsAutoConfigurationTest::unreachablePostbox);

    @Test
    void registersTheListenerAndQueueGaugesWithAMeterRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues(
                        "postbox.metrics.queue-poll-interval=7s", "postbox.metrics.duration-histogram=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(PostboxMetricsListener.class);
                    assertThat(context).hasSingleBean(PostboxQueueMetrics.class);
                    assertThat(context.getBeansOfType(PostboxListener.class)).hasSize(1);
                    PostboxMetricsProperties p = context.getBean(PostboxMetricsProperties.class);
                    assertThat(p.getQueuePollInterval()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(p.isDurationHistogram()).isFalse();
                });
    }

    @Test
    void absentWithoutAMeterRegistryBean() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(PostboxMetricsListener.class);
            assertThat(context).doesNotHaveBean(PostboxQueueMetrics.class);
        });
    }

    @Test
    void absentWithoutMicrometerOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(PostboxMetricsListener.class);
        });
    }

    @Test
    void absentWithoutAPostboxBean() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PostboxMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).doesNotHaveBean(PostboxMetricsListener.class));
    }

    @Test
    void switchedOffByProperty() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("postbox.metrics.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(PostboxMetricsListener.class);
                    assertThat(context).doesNotHaveBean(PostboxQueueMetrics.class);
                });
    }

    @Test
    void backsOffFromTheApplicationsOwnBeans() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(
                        "myListener",
                        PostboxMetricsListener.class,
                        () -> new PostboxMetricsListener(new SimpleMeterRegistry(), false))
                .run(context -> {
                    assertThat(context).hasSingleBean(PostboxMetricsListener.class);
                    assertThat(context).hasBean("myListener");
                });
    }

    @Test
    void invalidPollIntervalFailsWithThePropertyName() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("postbox.metrics.queue-poll-interval=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("postbox.metrics.queue-poll-interval"));
    }

    @Test
    void observabilityAutoConfigurationsAreRegisteredInTheImportsFile() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(
                        PostboxMetricsAutoConfiguration.class.getName(),
                        "dev.postbox.spring.health.PostboxHealthAutoConfiguration",
                        "dev.postbox.spring.endpoint.PostboxEndpointAutoConfiguration");
    }
}
