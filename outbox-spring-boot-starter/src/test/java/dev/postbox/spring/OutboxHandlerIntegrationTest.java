package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.RetryPolicy;
import dev.postbox.spring.internal.HandlerMethodRegistry;
import dev.postbox.spring.test.PostboxTestHelper;
import dev.postbox.spring.test.PostboxTestHelperConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

class OutboxHandlerIntegrationTest {

    public record Reservation(long orderId, String sku) {}

    /** A handler bean that itself depends on the Outbox (a follow-up job): no cycle at startup. */
    static class StockHandlers {
        final List<Reservation> reserved = new CopyOnWriteArrayList<>();
        final List<Long> jobIds = new CopyOnWriteArrayList<>();
        private final JdbcTemplate jdbc;
        private final Outbox outbox;

        StockHandlers(JdbcTemplate jdbc, Outbox outbox) {
            this.jdbc = jdbc;
            this.outbox = outbox;
        }

        @OutboxHandler(value = "reserve-stock", transactional = true, maxAttempts = 3)
        void reserve(Job job, Reservation reservation) {
            jdbc.update(
                    "INSERT INTO reservation (order_id, sku) VALUES (?, ?)", reservation.orderId(), reservation.sku());
            outbox.enqueue(JobRequest.of("stock-reserved", Map.of("orderId", reservation.orderId())));
            reserved.add(reservation);
            jobIds.add(job.id());
        }

        @OutboxHandler(value = "always-fails", backoffBase = "1h", backoffCap = "2h")
        void fail(Map<String, Object> payload) {
            throw new IllegalStateException("boom");
        }

        @OutboxHandler("stock-reserved")
        void reservedNotice() {}
    }

    static class DuplicateHandler {
        @OutboxHandler("reserve-stock")
        void reserveAgain(Reservation reservation) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class ShopConfiguration {
        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE IF NOT EXISTS reservation (order_id bigint PRIMARY KEY, sku text)");
            return jdbc;
        }

        @Bean
        StockHandlers stockHandlers(JdbcTemplate jdbc, Outbox outbox) {
            return new StockHandlers(jdbc, outbox);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                    BootAutoConfigurations.TRANSACTION,
                    PostboxAutoConfiguration.class))
            .withUserConfiguration(ShopConfiguration.class, PostboxTestHelperConfiguration.class)
            .withPropertyValues("postbox.worker.enabled=false");

    @Test
    void handlerReceivesTypedPayloadAndJob() {
        TestDataSources.withSchema(runner).run(context -> {
            enqueue(
                    context.getBean(PlatformTransactionManager.class),
                    context.getBean(Outbox.class),
                    JobRequest.of("reserve-stock", new Reservation(1, "sku-1")));
            PostboxTestHelper helper = context.getBean(PostboxTestHelper.class);

            assertThat(helper.runDueJobs()).isEqualTo(2); // the job and its follow-up

            StockHandlers handlers = context.getBean(StockHandlers.class);
            assertThat(handlers.reserved).containsExactly(new Reservation(1, "sku-1"));
            assertThat(handlers.jobIds).hasSize(1);
            assertThat(context.getBean(JdbcTemplate.class)
                            .queryForObject("SELECT count(*) FROM reservation", Integer.class))
                    .isEqualTo(1);
            helper.assertNotEnqueued("reserve-stock");
            helper.assertNotEnqueued("stock-reserved");
        });
    }

    @Test
    void annotationAttributesAndPropertiesMakeTheRetryPolicy() {
        TestDataSources.withSchema(runner)
                .withPropertyValues("postbox.handlers.always-fails.max-attempts=2", "postbox.retry.max-attempts=5")
                .run(context -> {
                    HandlerMethodRegistry registry = context.getBean(HandlerMethodRegistry.class);
                    assertThat(registry.byKind()).containsOnlyKeys("reserve-stock", "always-fails", "stock-reserved");

                    Outbox outbox = context.getBean(Outbox.class);
                    PlatformTransactionManager tm = context.getBean(PlatformTransactionManager.class);
                    enqueue(tm, outbox, JobRequest.of("always-fails", Map.of("n", 1)));
                    enqueue(tm, outbox, JobRequest.of("stock-reserved", Map.of()));
                    PostboxTestHelper helper = context.getBean(PostboxTestHelper.class);

                    helper.runDueJobs();
                    assertThat(helper.enqueued("always-fails").get(0).attempts())
                            .isEqualTo(1);
                    assertThat(helper.enqueued("always-fails").get(0).state()).isEqualTo("retry");
                    assertThat(helper.runDueJobs()).isZero(); // backoff base 1h from the annotation
                    assertThat(helper.runJobsDueWithin(Duration.ofHours(3))).isEqualTo(1);
                    // max-attempts=2 from properties wins over the default 5: dead after the second attempt
                    helper.assertNotEnqueued("always-fails");
                    assertThat(helper.deadLetterCount()).isEqualTo(1);
                });
    }

    @Test
    void maxAttemptsOfTheHandlerIsWrittenWithTheJob() {
        TestDataSources.withSchema(runner).run(context -> {
            enqueue(
                    context.getBean(PlatformTransactionManager.class),
                    context.getBean(Outbox.class),
                    JobRequest.of("reserve-stock", new Reservation(2, "sku-2")));
            Integer maxAttempts = context.getBean(JdbcTemplate.class)
                    .queryForObject("SELECT max_attempts FROM outbox_job WHERE kind = 'reserve-stock'", Integer.class);
            assertThat(maxAttempts).isEqualTo(3);
        });
    }

    @Test
    void twoHandlersForOneKindFailTheStartupNamingBoth() {
        TestDataSources.withSchema(runner)
                .withBean("duplicateHandler", DuplicateHandler.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("Two @OutboxHandler methods handle job kind 'reserve-stock'")
                            .hasStackTraceContaining("bean 'stockHandlers'")
                            .hasStackTraceContaining("bean 'duplicateHandler'");
                });
    }

    @Test
    void handlerRegistrationBeansAreRegisteredToo() {
        List<Long> ran = new CopyOnWriteArrayList<>();
        TestDataSources.withSchema(runner)
                .withBean(
                        "pingHandler",
                        HandlerRegistration.class,
                        () -> HandlerRegistration.of("ping", job -> ran.add(job.id()))
                                .retryPolicy(RetryPolicy.ofDefaults()))
                .run(context -> {
                    enqueue(
                            context.getBean(PlatformTransactionManager.class),
                            context.getBean(Outbox.class),
                            JobRequest.of("ping", Map.of()));
                    context.getBean(PostboxTestHelper.class).runDueJobs();
                    assertThat(ran).hasSize(1);
                });
    }

    @Test
    void workerRunsHandlersInTheBackground() {
        TestDataSources.withSchema(runner)
                .withPropertyValues(
                        "postbox.worker.enabled=true",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.worker.shutdown-grace=2s")
                .run(context -> {
                    enqueue(
                            context.getBean(PlatformTransactionManager.class),
                            context.getBean(Outbox.class),
                            JobRequest.of("reserve-stock", new Reservation(3, "sku-3")));
                    StockHandlers handlers = context.getBean(StockHandlers.class);
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> handlers.reserved.size() == 1);
                });
    }

    private static void enqueue(PlatformTransactionManager tm, Outbox outbox, JobRequest request) {
        new TransactionTemplate(tm).executeWithoutResult(s -> outbox.enqueue(request));
    }
}
