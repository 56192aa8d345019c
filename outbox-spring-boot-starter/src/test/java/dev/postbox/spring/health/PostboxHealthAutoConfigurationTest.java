package dev.postbox.spring.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Postbox;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

class PostboxHealthAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PostboxHealthAutoConfiguration.class))
            .withBean(
                    Postbox.class,
                    () -> Postbox.builder(
                                    new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1"))
                            .build());

    @Test
    void contributesPostboxHealthWithBoundProperties() {
        runner.withPropertyValues(
                        "postbox.health.oldest-age-threshold=90s",
                        "postbox.health.dlq-threshold=7",
                        "postbox.health.degraded-status=DEGRADED")
                .run(context -> {
                    assertThat(context).hasBean("postboxHealthIndicator");
                    PostboxHealthProperties p = context.getBean(PostboxHealthProperties.class);
                    assertThat(p.getOldestAgeThreshold()).isEqualTo(Duration.ofSeconds(90));
                    assertThat(p.getDlqThreshold()).isEqualTo(7);
                    assertThat(p.getDegradedStatus()).isEqualTo("DEGRADED");
                });
    }

    @Test
    void downWhenTheDatabaseIsUnreachable() {
        runner.run(context -> {
            HealthIndicator indicator = context.getBean("postboxHealthIndicator", HealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
        });
    }

    @Test
    void absentWithoutHealthSupportOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean("postboxHealthIndicator");
        });
    }

    @Test
    void absentWhenTheIndicatorIsSwitchedOff() {
        runner.withPropertyValues("management.health.postbox.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("postboxHealthIndicator"));
    }

    @Test
    void absentWithoutAPostboxBean() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PostboxHealthAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(PostboxHealthIndicator.class));
    }
}
