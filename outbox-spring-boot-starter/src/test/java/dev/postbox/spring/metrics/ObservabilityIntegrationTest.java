package dev.postbox.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.DeadLetter;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.PermanentJobFailure;
import dev.postbox.Postbox;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.endpoint.PostboxDeadLettersEndpoint;
import dev.postbox.spring.endpoint.PostboxEndpoint;
import dev.postbox.spring.endpoint.PostboxEndpointAutoConfiguration;
import dev.postbox.spring.endpoint.PostboxJobsEndpoint;
import dev.postbox.spring.endpoint.PostboxQueuesEndpoint;
import dev.postbox.spring.health.PostboxHealthAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Metrics, health and the endpoint on a real database, with Boot's own meter registry
 * auto-configuration, while jobs flow through the real engine.
 */
class ObservabilityIntegrationTest {

    static class Handlers {
        @OutboxHandler("ok")
        public void ok(Job job) {}

        @OutboxHandler("boom")
        public void boom(Job job) {
            throw new PermanentJobFailure("boom never works");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlerConfig {
        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    private final DataSource dataSource = TestDatabase.create();

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        BootAutoConfigurations.METRICS,
                        BootAutoConfigurations.SIMPLE_METRICS_EXPORT,
                        BootAutoConfigurations.COMPOSITE_METER_REGISTRY,
                        PostboxAutoConfiguration.class,
                        PostboxMetricsAutoConfiguration.class,
                        PostboxHealthAutoConfiguration.class,
                        PostboxEndpointAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource)
                .withUserConfiguration(HandlerConfig.class)
                .withPropertyValues(
                        "postbox.worker.enabled=false",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.transaction-mode=optional",
                        "postbox.schema.initialize=never",
                        "postbox.health.dlq-threshold=0",
                        "postbox.health.oldest-age-threshold=5m",
                        "postbox.admin.write-enabled=true",
                        "management.endpoints.web.exposure.include=postbox,postboxqueues,postboxjobs,postboxdeadletters");
    }

    @Test
    void metricsHealthAndEndpointFollowTheJobs() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            Postbox postbox = context.getBean(Postbox.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            PostboxQueueMetrics gauges = context.getBean(PostboxQueueMetrics.class);
            HealthIndicator health = context.getBean("postboxHealthIndicator", HealthIndicator.class);
            PostboxEndpoint endpoint = context.getBean(PostboxEndpoint.class);
            PostboxQueuesEndpoint queues = context.getBean(PostboxQueuesEndpoint.class);
            PostboxJobsEndpoint jobs = context.getBean(PostboxJobsEndpoint.class);
            PostboxDeadLettersEndpoint deadLetters = context.getBean(PostboxDeadLettersEndpoint.class);

            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            // enqueue: counters at once, depth at the next poll
            postbox.outbox().enqueue(JobRequest.of("ok", Map.of("n", 1)));
            postbox.outbox().enqueue(JobRequest.of("ok", Map.of("n", 2)));
            postbox.outbox().enqueue(JobRequest.of("boom", Map.of("n", 3)));
            assertThat(counter(registry, PostboxMetrics.JOBS_ENQUEUED, "kind", "ok", "outcome", "created"))
                    .isEqualTo(2);
            assertThat(gauges.refresh()).isTrue();
            assertThat(gauge(registry, PostboxMetrics.QUEUE_DEPTH, "queue", "default", "state", "due"))
                    .isEqualTo(3);
            assertThat(endpoint.summary().due()).isEqualTo(3);

            // run them on the real worker
            postbox.start();
            try {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> counter(registry, PostboxMetrics.JOBS_COMPLETED, "kind", "ok") == 2
                                && counter(registry, PostboxMetrics.JOBS_DEAD, "kind", "boom") == 1);
            } finally {
                postbox.stop();
            }
            assertThat(counter(registry, PostboxMetrics.JOBS_CLAIMED, "queue", "default"))
                    .isGreaterThanOrEqualTo(3);
            assertThat(counter(registry, PostboxMetrics.JOBS_DEAD, "kind", "boom", "outcome", "permanent"))
                    .isEqualTo(1);
            assertThat(registry.get(PostboxMetrics.JOB_DURATION)
                            .tags("kind", "ok")
                            .timer()
                            .count())
                    .isEqualTo(2);

            // the dead letter shows in the gauges, the health and the endpoint
            assertThat(gauges.refresh()).isTrue();
            assertThat(gauge(registry, PostboxMetrics.QUEUE_DEPTH, "queue", "default", "state", "due"))
                    .isZero();
            assertThat(gauge(registry, PostboxMetrics.DLQ_DEPTH, "queue", "default"))
                    .isEqualTo(1);
            Health degraded = health.health();
            assertThat(degraded.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(degraded.getDetails()).containsEntry("dlqDepth", 1L).containsEntry("dlqThreshold", 0L);

            List<DeadLetter> dlq = deadLetters.deadLetters("default", "boom", null, "never", null, null, 10, null);
            assertThat(dlq).hasSize(1);
            long id = dlq.get(0).id();
            PostboxJobsEndpoint.JobView job = jobs.job(id, null);
            assertThat(job).isNotNull();
            assertThat(job.state()).isEqualTo("dead");
            assertThat(job.history()).isNotEmpty();
            assertThat(job.payloadShown()).isFalse();
            assertThat(job.payloadJson()).isNull();
            assertThat(jobs.job(987_654_321L, null)).isNull();

            // replay through the endpoint
            WebEndpointResponse<Map<String, Object>> replay = deadLetters.replay(id, null, SecurityContext.NONE);
            assertThat(replay.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
            assertThat(replay.getBody()).containsEntry("replayed", 1);
            assertThat(deadLetters.replay(id, null, SecurityContext.NONE).getStatus())
                    .isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
            assertThat(gauges.refresh()).isTrue();
            assertThat(gauge(registry, PostboxMetrics.DLQ_DEPTH, "queue", "default"))
                    .isZero();
            assertThat(gauge(registry, PostboxMetrics.QUEUE_DEPTH, "queue", "default", "state", "due"))
                    .isEqualTo(1);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            // pause and resume
            assertThat(queues.paused("default", true, SecurityContext.NONE).getStatus())
                    .isEqualTo(WebEndpointResponse.STATUS_OK);
            assertThat(endpoint.summary().queues())
                    .filteredOn(q -> q.queue().equals("default"))
                    .singleElement()
                    .satisfies(q -> assertThat(q.paused()).isTrue());
            assertThat(gauges.refresh()).isTrue();
            assertThat(gauge(registry, PostboxMetrics.QUEUE_PAUSED, "queue", "default"))
                    .isEqualTo(1);
            queues.paused("default", false, SecurityContext.NONE);
            assertThat(queues.queue("default")).isNotNull();
            assertThat(queues.queues())
                    .filteredOn(q -> q.queue().equals("default"))
                    .singleElement()
                    .satisfies(q -> assertThat(q.paused()).isFalse());

            // a job due ten minutes ago in a queue nobody serves breaks the SLO
            postbox.outbox()
                    .enqueue(JobRequest.builder("ok")
                            .queue("slow")
                            .payload(Map.of())
                            .runAt(Instant.now().minus(Duration.ofMinutes(10)))
                            .build());
            assertThat(gauges.refresh()).isTrue();
            assertThat(gauge(registry, PostboxMetrics.QUEUE_OLDEST_AGE, "queue", "slow"))
                    .isGreaterThan(590);
            Health late = health.health();
            assertThat(late.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(late.getDetails()).containsEntry("oldestAgeQueue", "slow");
            assertThat(late.getDetails().get("reasons").toString()).contains("oldest-age-threshold");
        });
    }

    private static double counter(MeterRegistry registry, String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private static double gauge(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }
}
