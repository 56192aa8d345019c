package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.SchemaInstaller;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.spring.http.PostboxHttpAutoConfiguration;
import dev.postbox.spring.http.PostboxHttpEndpointRegistrar;
import dev.postbox.spring.schedule.PostboxScheduleAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 11: instances started at once on a fresh database (no schema yet) with schema initialisation
 * on, webhook endpoints and cron schedules configured, all start, and the rows are as configured.
 * Each "instance" is an application context with its own connection pool; barriers line them up at
 * each start-up write, so that they race: before any bean is created (schema install), before the
 * schedule registrar, and just before the endpoint registrar's phase.
 */
class ConcurrentStartUpTest {

    private static final int INSTANCES = 4;
    private static final int ROUNDS = 3;
    private static final String SECRET = WebhookSecret.generate().serialized();

    @Test
    void instancesStartingTogetherOnAFreshDatabaseAllStart() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            HikariDataSource database = TestDatabase.createEmpty();
            try {
                List<Throwable> failures = startTogether(database, instance -> "https://billing.example.com/hooks");

                assertThat(failures).isEmpty();
                JdbcTemplate jdbc = new JdbcTemplate(database);
                assertThat(jdbc.queryForList(
                                "SELECT version FROM outbox_schema_version ORDER BY version", Integer.class))
                        .containsExactlyElementsOf(SchemaInstaller.migrations().stream()
                                .map(SchemaInstaller.Migration::version)
                                .toList());
                assertThat(jdbc.queryForList("SELECT name || ' ' || url || ' ' || coalesce(rate_per_second, 0)"
                                + " || ' ' || array_to_string(event_types, ',') FROM outbox_endpoint ORDER BY name"))
                        .extracting(row -> row.values().iterator().next())
                        .containsExactly(
                                "audit https://audit.example.com/in 0 *",
                                "billing https://billing.example.com/hooks 25 invoice.paid");
                assertThat(jdbc.queryForList("SELECT endpoint, rate_per_second FROM outbox_rate_bucket"))
                        .containsExactly(Map.of("endpoint", "billing", "rate_per_second", 25.0));
                assertThat(jdbc.queryForList(
                                "SELECT name || ' ' || cron || ' ' || kind || ' ' || paused FROM outbox_schedule"
                                        + " ORDER BY name"))
                        .extracting(row -> row.values().iterator().next())
                        .containsExactly("nightly 30 2 * * * report false", "purge 0 */5 * * * purge false");
            } finally {
                TestDatabase.drop(database);
            }
        }
    }

    @Test
    void instancesWithDifferentDefinitionsAllStartAndOneWholeDefinitionWins() throws Exception {
        HikariDataSource database = TestDatabase.createEmpty();
        try {
            // A rolling deploy: half the instances still have the old URL of the billing endpoint.
            List<Throwable> failures = startTogether(
                    database,
                    instance -> instance % 2 == 0
                            ? "https://billing.example.com/hooks"
                            : "https://billing-v2.example.com/in");

            assertThat(failures).isEmpty();
            assertThat(new JdbcTemplate(database)
                            .queryForObject("SELECT url FROM outbox_endpoint WHERE name = 'billing'", String.class))
                    .isIn("https://billing.example.com/hooks", "https://billing-v2.example.com/in");
        } finally {
            TestDatabase.drop(database);
        }
    }

    private interface BillingUrl {
        String of(int instance);
    }

    /** Starts {@value #INSTANCES} contexts at once; returns what failed (empty when all started). */
    private static List<Throwable> startTogether(HikariDataSource database, BillingUrl billingUrl) throws Exception {
        CyclicBarrier beforeBeans = new CyclicBarrier(INSTANCES);
        CyclicBarrier beforeSchedules = new CyclicBarrier(INSTANCES);
        CyclicBarrier beforeEndpoints = new CyclicBarrier(INSTANCES);
        CyclicBarrier allRunning = new CyclicBarrier(INSTANCES);
        CyclicBarrier allChecked = new CyclicBarrier(INSTANCES);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < INSTANCES; i++) {
                int instance = i;
                runs.add(threads.submit(() -> {
                    HikariConfig config = new HikariConfig();
                    config.setJdbcUrl(database.getJdbcUrl());
                    config.setMaximumPoolSize(8);
                    try (HikariDataSource pool = new HikariDataSource(config)) {
                        runner(pool, billingUrl.of(instance))
                                .withBean(
                                        "barrierBeforeBeans",
                                        BeanFactoryPostProcessor.class,
                                        () -> beanFactory -> await(beforeBeans))
                                .withBean(
                                        "barrierBeforeSchedules",
                                        BeanPostProcessor.class,
                                        () -> new BeanPostProcessor() {
                                            @Override
                                            public Object postProcessBeforeInitialization(Object bean, String name) {
                                                if (name.equals("postboxScheduleRegistrar")) {
                                                    await(beforeSchedules);
                                                }
                                                return bean;
                                            }
                                        })
                                .withBean(
                                        "barrierBeforeEndpoints",
                                        SmartLifecycle.class,
                                        () -> new BarrierLifecycle(beforeEndpoints))
                                .run(context -> {
                                    if (context.getStartupFailure() != null) {
                                        failures.add(context.getStartupFailure());
                                        allRunning.reset();
                                        allChecked.reset();
                                        return;
                                    }
                                    await(allRunning);
                                    // every running worker is in the registry (its upsert runs at start)
                                    Awaitility.await()
                                            .atMost(Duration.ofSeconds(20))
                                            .until(
                                                    () -> new JdbcTemplate(pool)
                                                            .queryForObject(
                                                                    "SELECT count(*) FROM outbox_worker",
                                                                    Integer.class),
                                                    n -> n == INSTANCES);
                                    await(allChecked);
                                });
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                try {
                    run.get(2, TimeUnit.MINUTES);
                } catch (Exception e) {
                    failures.add(e);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        return failures;
    }

    private static ApplicationContextRunner runner(DataSource dataSource, String billingUrl) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxAutoConfiguration.class,
                        PostboxScheduleAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.schema.initialize=always",
                        "postbox.worker.concurrency=2",
                        "postbox.worker.poll-interval=200ms",
                        "postbox.worker.shutdown-grace=1s",
                        "postbox.transaction-mode=optional",
                        "postbox.http.secrets.keys.test=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                        "postbox.http.endpoints.billing.url=" + billingUrl,
                        "postbox.http.endpoints.billing.secrets=" + SECRET,
                        "postbox.http.endpoints.billing.rate-per-second=25",
                        "postbox.http.endpoints.billing.event-types=invoice.paid",
                        "postbox.http.endpoints.audit.url=https://audit.example.com/in",
                        "postbox.http.endpoints.audit.secrets=" + SECRET,
                        "postbox.http.endpoints.audit.event-types=*",
                        "postbox.schedules.nightly.cron=30 2 * * *",
                        "postbox.schedules.nightly.kind=report",
                        "postbox.schedules.purge.cron=0 */5 * * *",
                        "postbox.schedules.purge.kind=purge");
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the other instances did not reach the barrier", e);
        }
    }

    /** Lines the instances up just before the endpoint registrar's phase. */
    private record BarrierLifecycle(CyclicBarrier barrier) implements SmartLifecycle {
        @Override
        public void start() {
            await(barrier);
        }

        @Override
        public void stop() {}

        @Override
        public boolean isRunning() {
            return false;
        }

        @Override
        public int getPhase() {
            return PostboxHttpEndpointRegistrar.PHASE - 1;
        }
    }
}
