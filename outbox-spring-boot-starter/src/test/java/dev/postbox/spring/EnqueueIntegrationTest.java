package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.NoTransactionException;
import dev.postbox.spring.test.EnqueuedJob;
import dev.postbox.spring.test.PostboxTestHelper;
import dev.postbox.spring.test.PostboxTestHelperConfiguration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

class EnqueueIntegrationTest {

    public record Order(long id, String sku) {}

    public record Receipt(long orderId, String note) {}

    @OutboxEvent(kind = "order-shipped", idempotencyKey = "'shipped-' + orderId", orderingKey = "#event.sku")
    record OrderShipped(long orderId, String sku) {}

    static class Orders {
        private final JdbcTemplate jdbc;
        private final ApplicationEventPublisher events;

        Orders(JdbcTemplate jdbc, ApplicationEventPublisher events) {
            this.jdbc = jdbc;
            this.events = events;
        }

        @Transactional
        @Enqueue(
                kind = "reserve-stock",
                idempotencyKey = "'reserve-' + #result.id",
                orderingKey = "#sku",
                tags = {"order=#result.id", "sku=#sku", "none=null"})
        @Enqueue(
                kind = "receipt",
                payload = "new dev.postbox.spring.EnqueueIntegrationTest$Receipt(#result.id, 'thanks')",
                queue = "mail",
                delay = "10s",
                priority = 5)
        public Order place(long id, String sku) {
            jdbc.update("INSERT INTO shop_order (id, sku) VALUES (?, ?)", id, sku);
            return new Order(id, sku);
        }

        @Transactional
        @Enqueue(kind = "reserve-stock")
        public Order failing(long id, String sku) {
            jdbc.update("INSERT INTO shop_order (id, sku) VALUES (?, ?)", id, sku);
            throw new IllegalStateException("out of stock");
        }

        @Enqueue(kind = "reserve-stock", payload = "#p0")
        public void withoutTransaction(String sku) {
            jdbc.update("INSERT INTO shop_order (id, sku) VALUES (99, ?)", sku);
        }

        @Transactional
        @Enqueue(kind = "maybe", payload = "#p0", condition = "#p0 > 10")
        public void conditional(int amount) {}

        @Transactional
        public void ship(long id, String sku) {
            events.publishEvent(new OrderShipped(id, sku));
        }

        public void shipWithoutTransaction(long id, String sku) {
            events.publishEvent(new OrderShipped(id, sku));
        }
    }

    @Test
    void writesJobsInTheCallersTransactionWhenTheMethodReturns() {
        TestDataSources.withSchema(base()).run(context -> {
            createShopTable(context.getBean(JdbcTemplate.class));
            Orders orders = context.getBean(Orders.class);
            PostboxTestHelper helper = context.getBean(PostboxTestHelper.class);

            orders.place(1, "sku-1");

            EnqueuedJob reserve = helper.assertEnqueued("reserve-stock");
            assertThat(reserve.payload(Order.class)).isEqualTo(new Order(1, "sku-1"));
            assertThat(reserve.idempotencyKey()).isEqualTo("reserve-1");
            assertThat(reserve.orderingKey()).isEqualTo("sku-1");
            assertThat(reserve.queue()).isEqualTo("default");
            assertThat(context.getBean(JdbcTemplate.class)
                            .queryForObject(
                                    "SELECT array_to_string(tags, ',') FROM outbox_job WHERE kind = 'reserve-stock'",
                                    String.class))
                    .as("tags from SpEL; a null value leaves its tag out")
                    .isEqualTo("order=1,sku=sku-1");

            EnqueuedJob receipt = helper.assertEnqueued("receipt", Receipt.class, r -> r.orderId() == 1);
            assertThat(receipt.queue()).isEqualTo("mail");
            assertThat(receipt.priority()).isEqualTo(5);
            assertThat(receipt.runAt()).isAfter(Instant.now().plusSeconds(5));
        });
    }

    @Test
    void anExceptionWritesNothing() {
        TestDataSources.withSchema(base()).run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            createShopTable(jdbc);
            Orders orders = context.getBean(Orders.class);

            assertThatThrownBy(() -> orders.failing(2, "sku-2")).hasMessage("out of stock");

            context.getBean(PostboxTestHelper.class).assertNotEnqueued("reserve-stock");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM shop_order", Integer.class))
                    .isZero();
        });
    }

    @Test
    void noTransactionFailsBeforeTheMethodRuns() {
        TestDataSources.withSchema(base()).run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            createShopTable(jdbc);
            Orders orders = context.getBean(Orders.class);

            assertThatThrownBy(() -> orders.withoutTransaction("sku-3"))
                    .isInstanceOf(NoTransactionException.class)
                    .hasMessageContaining("Orders.withoutTransaction(String)")
                    .hasMessageContaining("'reserve-stock'")
                    .hasMessageContaining("@Transactional")
                    .hasMessageContaining("postbox.transaction-mode=optional");

            assertThat(jdbc.queryForObject("SELECT count(*) FROM shop_order", Integer.class))
                    .isZero();
            context.getBean(PostboxTestHelper.class).assertNotEnqueued("reserve-stock");
        });
    }

    @Test
    void optionalTransactionModeWritesOnItsOwn() {
        TestDataSources.withSchema(base())
                .withPropertyValues("postbox.transaction-mode=optional")
                .run(context -> {
                    createShopTable(context.getBean(JdbcTemplate.class));
                    context.getBean(Orders.class).withoutTransaction("sku-4");
                    assertThat(context.getBean(PostboxTestHelper.class)
                                    .assertEnqueued("reserve-stock")
                                    .payload(String.class))
                            .isEqualTo("sku-4");
                });
    }

    @Test
    void callerTransactionRollbackRemovesTheJobs() {
        TestDataSources.withSchema(base()).run(context -> {
            createShopTable(context.getBean(JdbcTemplate.class));
            Orders orders = context.getBean(Orders.class);
            TransactionTemplate tx = new TransactionTemplate(
                    context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            tx.executeWithoutResult(status -> {
                orders.place(5, "sku-5");
                status.setRollbackOnly();
            });
            context.getBean(PostboxTestHelper.class).assertNotEnqueued("reserve-stock");
        });
    }

    @Test
    void conditionDecides() {
        TestDataSources.withSchema(base()).run(context -> {
            Orders orders = context.getBean(Orders.class);
            orders.conditional(3);
            context.getBean(PostboxTestHelper.class).assertNotEnqueued("maybe");
            orders.conditional(30);
            context.getBean(PostboxTestHelper.class).assertEnqueued("maybe");
        });
    }

    @Test
    void outboxEventsAreWrittenInThePublishingTransaction() {
        TestDataSources.withSchema(base()).run(context -> {
            Orders orders = context.getBean(Orders.class);
            PostboxTestHelper helper = context.getBean(PostboxTestHelper.class);

            orders.ship(7, "sku-7");

            EnqueuedJob job = helper.assertEnqueued("order-shipped");
            assertThat(job.payload(OrderShipped.class)).isEqualTo(new OrderShipped(7, "sku-7"));
            assertThat(job.idempotencyKey()).isEqualTo("shipped-7");
            assertThat(job.orderingKey()).isEqualTo("sku-7");

            assertThatThrownBy(() -> orders.shipWithoutTransaction(8, "sku-8"))
                    .isInstanceOf(NoTransactionException.class)
                    .hasMessageContaining(OrderShipped.class.getName());
            assertThat(helper.enqueued("order-shipped")).hasSize(1);
        });
    }

    @Test
    void invalidAnnotationsFailTheStartup() {
        TestDataSources.withSchema(base()).withBean(BadDelay.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasMessageContaining("BadDelay.run()")
                    .hasMessageContaining("'soon' is not a duration");
        });
        TestDataSources.withSchema(base()).withBean(BadTagKey.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasMessageContaining("BadTagKey.run()")
                    .hasMessageContaining("tag key 'the customer'");
        });
        TestDataSources.withSchema(base()).withBean(VoidWithoutPayload.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasMessageContaining("VoidWithoutPayload.run()")
                    .hasMessageContaining("payload = \"#p0\"");
        });
    }

    static class BadDelay {
        @Enqueue(kind = "x", delay = "soon")
        public String run() {
            return "x";
        }
    }

    static class BadTagKey {
        @Enqueue(kind = "x", tags = "the customer=#p0")
        public String run() {
            return "x";
        }
    }

    static class VoidWithoutPayload {
        @Enqueue(kind = "x")
        public void run() {}
    }

    private static ApplicationContextRunner base() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxAutoConfiguration.class))
                .withUserConfiguration(PostboxTestHelperConfiguration.class)
                .withPropertyValues("postbox.worker.enabled=false")
                .withUserConfiguration(JdbcConfiguration.class)
                .withBean(Orders.class);
    }

    static void createShopTable(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE IF NOT EXISTS shop_order (id bigint PRIMARY KEY, sku text NOT NULL)");
    }

    @Configuration(proxyBeanMethods = false)
    static class JdbcConfiguration {
        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }
    }
}
