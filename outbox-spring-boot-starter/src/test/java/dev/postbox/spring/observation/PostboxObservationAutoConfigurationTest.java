package dev.postbox.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxInstrumentation;
import dev.postbox.http.webhook.WebhookInstrumentation;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.http.PostboxHttpAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

class PostboxObservationAutoConfigurationTest {

    private final DataSource dataSource = TestDatabase.create();
    private final List<String> handled = new CopyOnWriteArrayList<>();

    @AfterEach
    void drop() {
        TestDatabase.drop(dataSource);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxObservationAutoConfiguration.class,
                        PostboxAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withBean(
                        HandlerRegistration.class,
                        () -> HandlerRegistration.of(
                                "mail", job -> handled.add(job.headers().toString())))
                .withPropertyValues("postbox.schema.initialize=never", "postbox.worker.enabled=false");
    }

    private static ObservationRegistry metricsOnly(MeterRegistry meters) {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        return registry;
    }

    @Test
    void withoutAnObservationRegistryNothingIsObserved() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(PostboxInstrumentation.class);
            assertThat(context).doesNotHaveBean(WebhookInstrumentation.class);
            assertThat(context).hasSingleBean(Postbox.class);
        });
    }

    @Test
    void offWithTheProperty() {
        runner().withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("postbox.observations.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(PostboxInstrumentation.class);
                    assertThat(context).doesNotHaveBean(WebhookInstrumentation.class);
                });
    }

    @Test
    void withMetricsButNoTracerJobsAreTimedAndCarryNoTraceHeaders() {
        MeterRegistry meters = new SimpleMeterRegistry();
        runner().withBean(ObservationRegistry.class, () -> metricsOnly(meters)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(PostboxInstrumentation.class);
            assertThat(context).hasSingleBean(WebhookInstrumentation.class);
            Postbox postbox = context.getBean(Postbox.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            tx.execute(s -> postbox.outbox().enqueue(JobRequest.of("mail", Map.of("to", "a@example.com"))));
            tx.execute(s -> postbox.outbox()
                    .enqueueAll(List.of(
                            JobRequest.of("mail", Map.of("to", "b@example.com")),
                            JobRequest.of("mail", Map.of("to", "c@example.com")))));
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_job", Long.class))
                    .isEqualTo(3);
            assertThat(jdbc.queryForObject(
                            "SELECT count(*) FROM outbox_job WHERE headers ?? 'traceparent' OR headers ?? 'baggage'",
                            Long.class))
                    .isZero();
            assertThat(postbox.runDueJobs()).isEqualTo(3);

            assertThat(handled).containsOnly("{}");
            assertThat(meters.get("postbox.enqueue")
                            .tags("kind", "mail", "queue", "default", "outcome", "created")
                            .timer()
                            .count())
                    .as("one observation per job, also in a batch")
                    .isEqualTo(3);
            assertThat(meters.get("postbox.job.attempt")
                            .tags("kind", "mail", "outcome", "success")
                            .timer()
                            .count())
                    .isEqualTo(3);
        });
    }

    @Test
    void anInstrumentationOfTheApplicationReplacesTheObservedOne() {
        PostboxInstrumentation own = new PostboxInstrumentation() {};
        runner().withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withBean(PostboxInstrumentation.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(PostboxInstrumentation.class)).isSameAs(own);
                });
    }
}
