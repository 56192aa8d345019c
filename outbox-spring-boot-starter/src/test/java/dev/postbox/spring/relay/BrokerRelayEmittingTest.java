package dev.postbox.spring.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxModule;
import dev.postbox.amqp.AmqpRelay;
import dev.postbox.spring.OutboxEvent;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.amqp.PostboxAmqpAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Emitting to a broker on Boot 4 as to a webhook: an {@code @OutboxEvent} naming a relay's kind and
 * destination, and {@code relay.send(...)} in a Spring transaction, end to end to the local RabbitMQ;
 * a rate limit from properties; and the shutdown order (a module is closed after the engine stopped
 * using it).
 */
class BrokerRelayEmittingTest {

    /** An event relayed to the AMQP destination "audit". */
    @OutboxEvent(
            kind = AmqpRelay.KIND,
            destination = "audit",
            idempotencyKey = "'order-placed-' + orderId",
            orderingKey = "'order-' + orderId")
    public record OrderPlaced(long orderId, String sku) {}

    private final String queue = "postbox.emit." + UUID.randomUUID().toString().substring(0, 8);
    private final List<DataSource> databases = new ArrayList<>();
    private com.rabbitmq.client.Connection broker;
    private Channel admin;

    @BeforeEach
    void declareQueue() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        broker = factory.newConnection("postbox-test");
        admin = broker.createChannel();
        admin.queueDeclare(queue, false, false, true, null);
    }

    @AfterEach
    void cleanUp() throws Exception {
        admin.queueDelete(queue);
        broker.close();
        databases.forEach(TestDatabase::drop);
        databases.clear();
    }

    private ApplicationContextRunner runner() {
        DataSource dataSource = TestDatabase.create();
        databases.add(dataSource);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        PostboxAutoConfiguration.class,
                        PostboxAmqpAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.schema.initialize=never",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.worker.shutdown-grace=5s",
                        "postbox.amqp.host=127.0.0.1",
                        "postbox.amqp.destinations.audit.routing-key=" + queue);
    }

    private static void inTransaction(ApplicationContext context, Runnable work) {
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(s -> work.run());
    }

    private List<GetResponse> receive(int expected) {
        List<GetResponse> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            GetResponse r;
            while ((r = admin.basicGet(queue, true)) != null) {
                received.add(r);
            }
            return received.size() >= expected;
        });
        return received;
    }

    @Test
    void anOutboxEventNamingARelayDestinationIsPublishedToTheBrokerAfterTheCommitOnly() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            inTransaction(context, () -> context.publishEvent(new OrderPlaced(1, "sku-1")));
            // A rolled-back event: the template's transaction rolls back when the work throws.
            try {
                new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(s -> {
                    context.publishEvent(new OrderPlaced(2, "ghost"));
                    throw new IllegalStateException("the business change failed");
                });
            } catch (IllegalStateException expected) {
                // rolled back
            }
            inTransaction(context, () -> context.publishEvent(new OrderPlaced(3, "sku-3")));

            List<GetResponse> received = receive(2);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> new JdbcTemplate(context.getBean(DataSource.class))
                                    .queryForObject("SELECT count(*) FROM outbox_job", Long.class)
                            == 0);
            assertThat(received)
                    .extracting(m -> m.getProps().getMessageId())
                    .containsExactlyInAnyOrder("order-placed-1", "order-placed-3");
            GetResponse third = received.stream()
                    .filter(m -> m.getProps().getMessageId().equals("order-placed-3"))
                    .findFirst()
                    .orElseThrow();
            assertThat(third.getProps().getHeaders().get("postbox-ordering-key").toString())
                    .isEqualTo("order-3");
            assertThat(new String(third.getBody(), StandardCharsets.UTF_8))
                    .contains("\"sku\": \"sku-3\"")
                    .contains("\"orderId\": 3");
        });
    }

    @Test
    void sendInASpringTransactionPublishesOnceAndARateLimitFromPropertiesIsShared() {
        runner().withPropertyValues("postbox.amqp.destinations.audit.max-per-second=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    AmqpRelay relay = context.getBean(AmqpRelay.class);
                    assertThat(relay.destinations().get("audit").maxPerSecond()).isEqualTo(3);
                    long committed = System.nanoTime();
                    inTransaction(context, () -> {
                        for (int i = 0; i < 6; i++) {
                            relay.send("audit", Map.of("n", i), "sent-" + i);
                        }
                        relay.send("audit", Map.of("n", 0), "sent-0"); // the same key: no second job
                    });

                    List<GetResponse> received = receive(6);
                    double seconds = (System.nanoTime() - committed) / 1e9;
                    assertThat(seconds)
                            .as("three at once (the burst), three more at 3/s")
                            .isGreaterThan(0.9);
                    assertThat(received)
                            .extracting(m -> m.getProps().getMessageId())
                            .containsExactlyInAnyOrder("sent-0", "sent-1", "sent-2", "sent-3", "sent-4", "sent-5");
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                    assertThat(jdbc.queryForObject(
                                    "SELECT rate_per_second FROM outbox_rate_bucket WHERE endpoint = 'amqp:audit'",
                                    Double.class))
                            .isEqualTo(3.0);
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> jdbc.queryForObject("SELECT count(*) FROM outbox_job", Long.class) == 0);
                    assertThat(jdbc.queryForObject("SELECT max(attempts) FROM outbox_job_archive", Integer.class))
                            .as("the three over the burst waited without spending an attempt")
                            .isEqualTo(1);
                });
    }

    /** A module whose handler is in flight when the context closes, recording what it sees at its close. */
    static final class SlowModule implements PostboxModule, AutoCloseable {
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicBoolean handlerFinished = new AtomicBoolean();
        final AtomicReference<@Nullable String> atClose = new AtomicReference<>();
        volatile @Nullable Postbox engine;

        @Override
        public List<HandlerRegistration> handlers() {
            return List.of(HandlerRegistration.of("slow-relay", job -> {
                started.countDown();
                // In flight for a while: the context is closed meanwhile.
                new CountDownLatch(1).await(1, TimeUnit.SECONDS);
                handlerFinished.set(true);
            }));
        }

        @Override
        public void close() {
            Postbox postbox = engine;
            atClose.set("handler finished: " + handlerFinished.get() + ", engine running: "
                    + (postbox != null && postbox.isRunning()));
        }
    }

    @Test
    void aModuleIsClosedAfterTheEngineStoppedUsingIt() throws Exception {
        SlowModule module = new SlowModule();
        runner().withBean("slowModule", PostboxModule.class, () -> module).run(context -> {
            assertThat(context).hasNotFailed();
            Postbox postbox = context.getBean(Postbox.class);
            module.engine = postbox;
            inTransaction(
                    context,
                    () -> postbox.outbox()
                            .enqueue(JobRequest.builder("slow-relay")
                                    .payload(Map.of())
                                    .build()));
            assertThat(module.started.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(module.atClose.get()).isNull();
        });
        assertThat(module.atClose.get())
                .as("closed after the engine stopped and its in-flight handler finished")
                .isEqualTo("handler finished: true, engine running: false");
    }
}
