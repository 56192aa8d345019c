package dev.postbox.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.RetryPolicy;
import dev.postbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RabbitMQ relay against the broker on this machine (127.0.0.1:5672, guest/guest; {@code .ci/run}
 * starts it when it is down) and real PostgreSQL: what is published, when, with which id, and what a
 * broker's refusal does to the job.
 */
class AmqpRelayTest {

    private static final RetryPolicy FAST = RetryPolicy.custom()
            .base(Duration.ofMillis(50))
            .cap(Duration.ofMillis(200))
            .maxAttempts(50)
            .build();

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String exchange = "postbox.test." + suffix;
    private final String queue = "postbox.test.q." + suffix;
    private final List<AutoCloseable> closing = new ArrayList<>();
    private HikariDataSource db;
    private Connection broker;
    private Channel admin;

    @BeforeEach
    void setUp() throws Exception {
        db = TestDatabase.create();
        broker = factory().newConnection("postbox-test");
        admin = broker.createChannel();
        admin.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false, true, null);
        admin.queueDeclare(queue, false, false, true, null);
        admin.queueBind(queue, exchange, "routed");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        admin.queueDelete(queue);
        admin.exchangeDelete(exchange);
        broker.close();
        TestDatabase.drop(db);
    }

    private static ConnectionFactory factory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost("127.0.0.1");
        f.setPort(5672);
        f.setUsername("guest");
        f.setPassword("guest");
        return f;
    }

    private AmqpRelay relay(UnaryOperator<AmqpRelay.Builder> extra) {
        AmqpRelay relay = extra.apply(AmqpRelay.builder(factory())
                        .retryPolicy(FAST)
                        .destination(AmqpDestination.of("orders", exchange, "routed"))
                        .destination(AmqpDestination.of("unrouted", exchange, "nobody-listens"))
                        .destination(AmqpDestination.of("missing", exchange + ".does-not-exist", "routed")))
                .build();
        closing.add(relay);
        return relay;
    }

    private Postbox start(Postbox.Builder builder) {
        Postbox postbox = builder.config(PostboxConfig.custom()
                        .pollInterval(Duration.ofMillis(50))
                        .build())
                .build();
        closing.add(postbox::stop);
        postbox.start();
        return postbox;
    }

    private void commit(Postbox postbox, JobRequest request) throws SQLException {
        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().enqueue(c, request);
            c.commit();
        }
    }

    private List<GetResponse> drain() throws Exception {
        List<GetResponse> messages = new ArrayList<>();
        GetResponse r;
        while ((r = admin.basicGet(queue, true)) != null) {
            messages.add(r);
        }
        return messages;
    }

    private long count(String sql) throws SQLException {
        try (java.sql.Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String text(String sql) throws SQLException {
        try (java.sql.Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() && rs.getString(1) != null ? rs.getString(1) : "";
        }
    }

    @Test
    void aCommittedMessageIsPublishedConfirmedAndPersistentWithItsKeyAsMessageId() throws Exception {
        AmqpRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(
                postbox,
                relay.messageBuilder("orders", Map.of("order", 4711), "order-4711-created")
                        .orderingKey("customer-7")
                        .build());

        List<GetResponse> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            received.addAll(drain());
            return !received.isEmpty();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        received.addAll(drain());

        assertThat(received).hasSize(1);
        GetResponse m = received.get(0);
        assertThat(m.getProps().getMessageId()).isEqualTo("order-4711-created");
        assertThat(m.getProps().getDeliveryMode()).as("persistent").isEqualTo(2);
        assertThat(m.getProps().getContentType()).isEqualTo("application/json");
        assertThat(m.getProps().getHeaders().get("postbox-key").toString()).isEqualTo("order-4711-created");
        assertThat(m.getProps().getHeaders().get("postbox-ordering-key").toString())
                .isEqualTo("customer-7");
        assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualToIgnoringWhitespace("{\"order\":4711}");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isZero();
    }

    @Test
    void aRolledBackMessageIsNeverPublished() throws Exception {
        AmqpRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().enqueue(c, relay.message("orders", Map.of("n", "ghost"), "ghost"));
            c.rollback();
        }
        commit(postbox, relay.message("orders", Map.of("n", "marker"), "marker"));

        List<GetResponse> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            received.addAll(drain());
            return received.stream().anyMatch(m -> "marker".equals(m.getProps().getMessageId()));
        });
        assertThat(received).extracting(m -> m.getProps().getMessageId()).containsExactly("marker");
    }

    @Test
    void anUnroutableMessageFailsWithTheBrokersReasonUntilAQueueIsBound() throws Exception {
        AmqpRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(postbox, relay.message("unrouted", Map.of("n", 1), "unrouted-1"));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> text("SELECT last_error FROM outbox_job"), e -> e.contains("312 NO_ROUTE"));
        assertThat(text("SELECT last_error FROM outbox_job"))
                .contains("AMQP destination 'unrouted'")
                .contains("routing key 'nobody-listens'");

        admin.queueBind(queue, exchange, "nobody-listens");
        List<GetResponse> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            received.addAll(drain());
            return !received.isEmpty();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(received).extracting(m -> m.getProps().getMessageId()).containsExactly("unrouted-1");
    }

    @Test
    void aMissingExchangeIsDeadLetteredWithTheBrokersReasonAndOtherDestinationsKeepWorking() throws Exception {
        AmqpRelay relay = relay(b -> b.retryPolicy(RetryPolicy.custom()
                .base(Duration.ofMillis(50))
                .cap(Duration.ofMillis(100))
                .maxAttempts(3)
                .build()));
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(postbox, relay.message("missing", Map.of("n", 1), "missing-1"));
        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_dead_letter") == 1);
        assertThat(text("SELECT last_error FROM outbox_dead_letter"))
                .contains("AMQP destination 'missing'")
                .contains("404 NOT_FOUND");
        assertThat(count("SELECT attempts FROM outbox_dead_letter")).isEqualTo(3);

        commit(postbox, relay.message("orders", Map.of("n", 2), "after-the-failure"));
        List<GetResponse> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            received.addAll(drain());
            return !received.isEmpty();
        });
        assertThat(received).extracting(m -> m.getProps().getMessageId()).containsExactly("after-the-failure");
    }

    @Test
    void aMessageRepublishedAfterACrashBetweenConfirmAndCompletionCarriesTheSameMessageId() throws Exception {
        AmqpRelay relay = relay(b -> b);
        HandlerRegistration real = relay.registration();
        AtomicBoolean crashed = new AtomicBoolean();
        // The worker "dies" after the broker's confirm and before the completion commits: the
        // attempt fails after the publish, and the engine runs the job again.
        Postbox postbox = start(Postbox.builder(db)
                .handler(HandlerRegistration.of(AmqpRelay.KIND, job -> {
                            real.handler().handle(job);
                            if (crashed.compareAndSet(false, true)) {
                                throw new IllegalStateException("the worker died after the broker's confirm");
                            }
                        })
                        .retryPolicy(FAST)));

        commit(postbox, relay.message("orders", Map.of("n", 1), null));

        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        List<GetResponse> received = drain();
        assertThat(received).hasSize(2);
        assertThat(received.get(0).getProps().getMessageId())
                .as("a generated key, the same on both publishes")
                .isNotBlank()
                .isEqualTo(received.get(1).getProps().getMessageId());
    }

    @Test
    void badConfigurationIsRefusedWithTheFix() {
        assertThatThrownBy(() -> AmqpDestination.of("orders/eu", "x", "y"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("destination name 'orders/eu' is not valid");
        assertThatThrownBy(() -> AmqpRelay.builder(factory()).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("at least one destination");
        assertThatThrownBy(() -> AmqpRelay.builder(factory())
                        .destination(AmqpDestination.queue("a", "q"))
                        .destination(AmqpDestination.queue("a", "r")))
                .hasMessageContaining("'a' is configured twice");
        AmqpRelay relay = relay(b -> b);
        assertThatThrownBy(() -> relay.message("nowhere", Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AMQP destination 'nowhere' is not configured");
    }
}
