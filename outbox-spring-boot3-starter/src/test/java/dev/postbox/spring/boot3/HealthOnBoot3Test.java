package dev.postbox.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.QueueStats;
import dev.postbox.spring.health.PostboxHealthAutoConfiguration;
import dev.postbox.spring.health.PostboxHealthIndicator;
import dev.postbox.spring.health.PostboxHealthProperties;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The {@code postbox} health contributor with Spring Boot 3.5's actuator types and conditions. */
class HealthOnBoot3Test {

    private DataSource database;
    private Postbox postbox;

    @BeforeEach
    void start() {
        database = TestDatabase.create();
        postbox = Postbox.builder(database).build();
    }

    @AfterEach
    void stop() {
        TestDatabase.drop(database);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PostboxHealthAutoConfiguration.class))
                .withBean(Postbox.class, () -> postbox);
    }

    @Test
    void reportsUpThenTheDegradedStatusOnARealDatabase() {
        runner().withPropertyValues("postbox.health.dlq-threshold=0", "postbox.health.degraded-status=DEGRADED")
                .run(context -> {
                    HealthIndicator indicator = context.getBean("postboxHealthIndicator", HealthIndicator.class);
                    Health healthy = indicator.health();
                    assertThat(healthy.getStatus()).isEqualTo(Status.UP);
                    assertThat(healthy.getDetails())
                            .containsEntry("dlqDepth", 0L)
                            .containsEntry("dlqThreshold", 0L);

                    new TransactionTemplate(new DataSourceTransactionManager(database))
                            .executeWithoutResult(
                                    tx -> postbox.outbox().enqueue(JobRequest.of("health-check", Map.of("n", 1))));
                    assertThat(indicator.health().getDetails()).containsEntry("queues", 1);
                });
    }

    @Test
    void degradedWhenTheDeadLettersPassTheThreshold() {
        PostboxHealthProperties properties = new PostboxHealthProperties();
        properties.setDlqThreshold(1);
        Health health = new PostboxHealthIndicator(
                        () -> List.of(new QueueStats("q", 0, 0, 0, Duration.ZERO, 2, false)), properties)
                .health();
        assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(health.getDetails()).containsKey("reasons");
    }

    @Test
    void downWhenTheStatisticsCannotBeRead() {
        Health health = new PostboxHealthIndicator(
                        () -> {
                            throw new IllegalStateException("connection refused");
                        },
                        new PostboxHealthProperties())
                .health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsKey("error");
    }

    @Test
    void absentWhenSwitchedOff() {
        runner().withPropertyValues("management.health.postbox.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("postboxHealthIndicator"));
    }
}
