package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.AttemptLogLevel;
import dev.postbox.JobRequest;
import dev.postbox.JsonCodec;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.PostboxAdmin;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.RetryPolicy;
import dev.postbox.TransactionMode;
import dev.postbox.spring.internal.PostboxWorkerLifecycle;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

class PostboxAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                    BootAutoConfigurations.TRANSACTION,
                    PostboxAutoConfiguration.class))
            .withPropertyValues("postbox.worker.enabled=false");

    @Test
    void backsOffWithoutDataSource() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Postbox.class);
            assertThat(context).doesNotHaveBean(Outbox.class);
            assertThat(context).doesNotHaveBean(PostboxProperties.class);
        });
    }

    @Test
    void backsOffWhenDisabled() {
        TestDataSources.withSchema(runner)
                .withPropertyValues("postbox.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(Postbox.class);
                    assertThat(context).doesNotHaveBean(PostboxSchemaInitializer.class);
                });
    }

    @Test
    void providesEngineOutboxAdminAndCodec() {
        TestDataSources.withSchema(runner).run(context -> {
            assertThat(context).hasSingleBean(Postbox.class);
            assertThat(context).hasSingleBean(Outbox.class);
            assertThat(context).hasSingleBean(PostboxAdmin.class);
            assertThat(context).hasSingleBean(JsonCodec.class);
            assertThat(context).hasSingleBean(PostboxSchemaInitializer.class);
            assertThat(context.getBean(Outbox.class))
                    .isSameAs(context.getBean(Postbox.class).outbox());
            assertThat(context.getBean(PostboxAdmin.class).queues()).isEmpty();
        });
    }

    @Test
    void defaultsEqualCoreDefaults() {
        TestDataSources.withSchema(runner).run(context -> {
            PostboxConfig config = context.getBean(Postbox.class).config();
            PostboxConfig defaults = PostboxConfig.ofDefaults();
            assertThat(config.queues()).isEqualTo(defaults.queues());
            assertThat(config.concurrency()).isEqualTo(defaults.concurrency());
            assertThat(config.claimBatchSize()).isEqualTo(defaults.claimBatchSize());
            assertThat(config.prefetch()).isEqualTo(defaults.prefetch());
            assertThat(config.pollInterval()).isEqualTo(defaults.pollInterval());
            assertThat(config.notifyInterval()).isEqualTo(defaults.notifyInterval());
            assertThat(config.visibilityTimeout()).isEqualTo(defaults.visibilityTimeout());
            assertThat(config.heartbeatInterval()).isEqualTo(defaults.heartbeatInterval());
            assertThat(config.shutdownGrace()).isEqualTo(defaults.shutdownGrace());
            assertThat(config.idempotencyWindow()).isEqualTo(defaults.idempotencyWindow());
            assertThat(config.maxPayloadBytes()).isEqualTo(defaults.maxPayloadBytes());
            assertThat(config.archiveRetention()).isEqualTo(defaults.archiveRetention());
            assertThat(config.transactionMode()).isEqualTo(defaults.transactionMode());
            assertThat(config.attemptLog()).isEqualTo(defaults.attemptLog());
            assertThat(config.retryPolicy().toString())
                    .isEqualTo(RetryPolicy.ofDefaults().toString());
            assertThat(config.workerThreadFactory()).isNull();
        });
    }

    @Test
    void bindsProperties() {
        TestDataSources.withSchema(runner)
                .withPropertyValues(
                        "postbox.worker.id=worker-7",
                        "postbox.worker.queues=mail,billing",
                        "postbox.worker.concurrency=3",
                        "postbox.worker.claim-batch-size=20",
                        "postbox.worker.prefetch=5",
                        "postbox.worker.poll-interval=250ms",
                        "postbox.worker.visibility-timeout=1m",
                        "postbox.worker.heartbeat-interval=15s",
                        "postbox.worker.shutdown-grace=5s",
                        "postbox.worker.slow-attempt-threshold=2s",
                        "postbox.worker.queue-concurrency.billing=2",
                        "postbox.worker.lane-weights.high=50",
                        "postbox.worker.lane-weights.normal=40",
                        "postbox.worker.lane-weights.low=10",
                        "postbox.retry.base=200ms",
                        "postbox.retry.cap=30s",
                        "postbox.retry.max-attempts=4",
                        "postbox.transaction-mode=optional",
                        "postbox.attempt-log=all",
                        "postbox.max-payload-bytes=2048",
                        "postbox.idempotency-window=1d",
                        "postbox.notify-interval=10ms",
                        "postbox.archive.retention=3d")
                .run(context -> {
                    PostboxConfig config = context.getBean(Postbox.class).config();
                    assertThat(config.workerId()).isEqualTo("worker-7");
                    assertThat(config.queues()).isEqualTo(Set.of("mail", "billing"));
                    assertThat(config.concurrency()).isEqualTo(3);
                    assertThat(config.claimBatchSize()).isEqualTo(20);
                    assertThat(config.prefetch()).isEqualTo(5);
                    assertThat(config.pollInterval()).isEqualTo(Duration.ofMillis(250));
                    assertThat(config.notifyInterval()).isEqualTo(Duration.ofMillis(10));
                    assertThat(config.visibilityTimeout()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(15));
                    assertThat(config.shutdownGrace()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(config.slowAttemptThreshold()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(config.queueConcurrency()).isEqualTo(java.util.Map.of("billing", 2));
                    assertThat(config.laneWeights()).containsExactly(50, 40, 10);
                    assertThat(config.retryPolicy().base()).isEqualTo(Duration.ofMillis(200));
                    assertThat(config.retryPolicy().cap()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(config.retryPolicy().maxAttempts()).isEqualTo(4);
                    assertThat(config.transactionMode()).isEqualTo(TransactionMode.OPTIONAL);
                    assertThat(config.attemptLog()).isEqualTo(AttemptLogLevel.ALL);
                    assertThat(config.maxPayloadBytes()).isEqualTo(2048);
                    assertThat(config.idempotencyWindow()).isEqualTo(Duration.ofDays(1));
                    assertThat(config.archiveRetention()).isEqualTo(Duration.ofDays(3));
                });
    }

    @Test
    void invalidPropertiesFailStartupNamingTheProblem() {
        TestDataSources.withSchema(runner)
                .withPropertyValues("postbox.worker.heartbeat-interval=1m", "postbox.worker.visibility-timeout=30s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("heartbeatInterval")
                            .hasMessageContaining("visibilityTimeout");
                });
    }

    @Test
    void userBeansWin() {
        HikariDataSource ds = TestDatabase.create();
        Postbox own = Postbox.builder(ds).build();
        JsonCodec codec = JsonCodec.jackson();
        runner.withBean(
                        "testDatabaseDropper",
                        TestDataSources.DatabaseDropper.class,
                        () -> new TestDataSources.DatabaseDropper(ds))
                .withBean("dataSource", DataSource.class, () -> ds, definition -> definition.setDestroyMethodName(""))
                .withBean("myPostbox", Postbox.class, () -> own)
                .withBean("myCodec", JsonCodec.class, () -> codec)
                .run(context -> {
                    assertThat(context).hasSingleBean(Postbox.class);
                    assertThat(context.getBean(Postbox.class)).isSameAs(own);
                    assertThat(context.getBean(JsonCodec.class)).isSameAs(codec);
                    assertThat(context.getBean(Outbox.class)).isSameAs(own.outbox());
                });
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aPoolSmallerThanTheWorkerNeedsIsNamedAtStartWithTheFix(CapturedOutput output) {
        HikariDataSource small = TestDatabase.create();
        small.setMaximumPoolSize(8); // the worker may hold 10 handlers' + 6 engine connections
        TestDataSources.on(runner, small)
                // Chosen by the application: kept and warned about (unset, it would be fitted to the pool).
                .withPropertyValues(
                        "postbox.worker.enabled=true",
                        "postbox.worker.shutdown-grace=2s",
                        "postbox.worker.concurrency=10")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output)
                .contains("Postbox's DataSource pool allows 8 connections, but the worker may hold 16 at once")
                .contains("spring.datasource.hikari.maximum-pool-size to at least 16");

        HikariDataSource enough = TestDatabase.create();
        enough.setMaximumPoolSize(16);
        TestDataSources.on(runner, enough)
                .withPropertyValues("postbox.worker.enabled=true", "postbox.worker.shutdown-grace=2s")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).containsOnlyOnce("Postbox's DataSource pool allows");
    }

    @Test
    void workerLifecycleOnlyWhenWorkerEnabled() {
        TestDataSources.withSchema(runner)
                .run(context -> assertThat(context).doesNotHaveBean(PostboxWorkerLifecycle.class));
        TestDataSources.withSchema(runner)
                // a short grace: core's engine may wait the whole grace for its LISTEN thread on stop
                .withPropertyValues("postbox.worker.enabled=true", "postbox.worker.shutdown-grace=2s")
                .run(context -> {
                    assertThat(context).hasSingleBean(PostboxWorkerLifecycle.class);
                    Postbox postbox = context.getBean(Postbox.class);
                    assertThat(postbox.isRunning()).isTrue();
                    long start = System.nanoTime();
                    context.close();
                    assertThat(postbox.isRunning()).isFalse();
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                });
    }

    @Test
    void customizersAreApplied() {
        TestDataSources.withSchema(runner)
                .withBean(PostboxCustomizer.class, () -> new PostboxCustomizer() {
                    @Override
                    public void customizeConfig(PostboxConfig.Builder config) {
                        config.workerId("customized");
                    }

                    @Override
                    public void customizePostbox(Postbox.Builder postbox) {
                        postbox.handler("from-customizer", job -> {});
                    }
                })
                .run(context -> assertThat(
                                context.getBean(Postbox.class).config().workerId())
                        .isEqualTo("customized"));
    }

    @Test
    void everyListenerBeanReceivesEvents() {
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> second = new CopyOnWriteArrayList<>();
        TestDataSources.withSchema(runner)
                .withBean("first", PostboxListener.class, () -> new PostboxListener() {
                    @Override
                    public void enqueued(String queue, String kind, boolean created) {
                        first.add(kind);
                    }
                })
                .withBean("second", PostboxListener.class, () -> new PostboxListener() {
                    @Override
                    public void enqueued(String queue, String kind, boolean created) {
                        throw new IllegalStateException("a faulty listener is skipped");
                    }
                })
                .withBean("third", PostboxListener.class, () -> new PostboxListener() {
                    @Override
                    public void enqueued(String queue, String kind, boolean created) {
                        second.add(kind);
                    }
                })
                .run(context -> {
                    Outbox outbox = context.getBean(Outbox.class);
                    new TransactionTemplate(
                                    context.getBean(org.springframework.transaction.PlatformTransactionManager.class))
                            .executeWithoutResult(s -> outbox.enqueue(JobRequest.of("ping", java.util.Map.of())));
                    assertThat(first).containsExactly("ping");
                    assertThat(second).containsExactly("ping");
                });
    }

    @Test
    void schemaInitializedOnlyWhenAsked() {
        TestDataSources.empty(runner)
                .withPropertyValues("postbox.schema.initialize=always")
                .run(context -> assertThat(tableExists(context.getBean(DataSource.class)))
                        .isTrue());
        HikariDataSource untouched = TestDatabase.createEmpty();
        TestDataSources.on(runner, untouched)
                .withPropertyValues("postbox.schema.initialize=never")
                .run(context -> {
                    // never: Postbox creates nothing, and does not start on the empty database (PostboxSchemaTest).
                    assertThat(context).hasFailed();
                    assertThat(PostboxSchemaTest.report(context.getStartupFailure()))
                            .contains("missing: outbox_job")
                            .contains("postbox.schema.initialize=never");
                });
    }

    static boolean tableExists(DataSource ds) {
        return Boolean.TRUE.equals(
                new JdbcTemplate(ds).queryForObject("SELECT to_regclass('outbox_job') IS NOT NULL", Boolean.class));
    }
}
