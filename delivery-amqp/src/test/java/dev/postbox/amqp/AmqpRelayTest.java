package dev.postbox.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.RetryPolicy;
import dev.postbox.testing.EngineRig;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String exchange = "postbox.test." + suffix;
    private final String queue = "postbox.test.q." + suffix;
    private EngineRig rig;
    private HikariDataSource db;
    private Connection broker;
    private Channel admin;

    @BeforeEach
    void setUp() throws Exception {
        rig = new EngineRig();
        db = rig.db();
        broker = factory().newConnection("postbox-test");
        admin = broker.createChannel();
        admin.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false, true, null);
        admin.queueDeclare(queue, false, false, true, null);
        admin.queueBind(queue, exchange, "routed");
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
        admin.queueDelete(queue);
        admin.exchangeDelete(exchange);
        broker.close();
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
                        .retryPolicy(EngineRig.FAST_RETRIES)
                        .destination(AmqpDestination.of("orders", exchange, "routed"))
                        .destination(AmqpDestination.of("unrouted", exchange, "nobody-listens"))
                        .destination(AmqpDestination.of("missing", exchange + ".does-not-exist", "routed")))
                .build();
        rig.closeAtEnd(relay);
        return relay;
    }

    private Postbox start(Postbox.Builder builder) {
        Postbox postbox = build(builder);
        postbox.start();
        return postbox;
    }

    /** Claims of 10: two engines share the work rather than one claiming it all. */
    private Postbox build(Postbox.Builder builder) {
        return rig.build(builder, config -> config.claimBatchSize(10));
    }

    private void commit(Postbox postbox, JobRequest request) throws SQLException {
        rig.commit(postbox, List.of(request));
    }

    private List<GetResponse> drain() throws Exception {
        List<GetResponse> messages = new ArrayList<>();
        GetResponse r;
        while ((r = admin.basicGet(queue, true)) != null) {
            messages.add(r);
        }
        return messages;
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
        await().atMost(Duration.ofSeconds(10)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
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
        assertThat(rig.count("SELECT count(*) FROM outbox_dead_letter")).isZero();
    }

    @Test
    void sendWritesTheMessageInTheCallersTransactionWithTheTraceContextAsHeaders() throws Exception {
        AmqpRelay relay = relay(b -> b);
        assertThatThrownBy(() -> relay.send("orders", Map.of("n", 0), "too-early"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not installed in an engine yet");
        Postbox postbox = start(Postbox.builder(db).module(relay));

        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            relay.send(c, "orders", Map.of("n", "ghost"), "ghost");
            c.rollback();
        }
        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            relay.send(c, "orders", Map.of("n", 1), "sent-1");
            relay.send(c, "orders", Map.of("n", 1), "sent-1");
            postbox.outbox()
                    .enqueue(
                            c,
                            relay.messageBuilder("orders", Map.of("n", 2), "traced")
                                    .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                                    .header("tracestate", "vendor=1")
                                    .build());
            c.commit();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        List<GetResponse> received = drain();
        assertThat(received)
                .as("the rolled-back one never, the twice-sent one once")
                .extracting(m -> m.getProps().getMessageId())
                .containsExactlyInAnyOrder("sent-1", "traced");
        GetResponse traced = received.stream()
                .filter(m -> m.getProps().getMessageId().equals("traced"))
                .findFirst()
                .orElseThrow();
        assertThat(traced.getProps().getHeaders().get("traceparent").toString())
                .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(traced.getProps().getHeaders().get("tracestate").toString()).isEqualTo("vendor=1");
    }

    /**
     * Two engines (as two worker processes would) with a relay each share the destination's bucket
     * through the database: 60 messages at 10/s with a burst of 10 take at least 5 s, where two
     * per-process buckets would take 2 s, and no second sees more than rate + burst.
     */
    @Test
    void aRateLimitHoldsAcrossTwoEnginesAndSnoozesWithoutSpendingAttemptsOrHoldingWorkers() throws Exception {
        int messages = 60;
        int perSecond = 10;
        ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> unlimitedArrivals = new ConcurrentLinkedQueue<>();
        DeliverCallback onMessage =
                (tag, m) -> (m.getProperties().getMessageId().startsWith("unlimited") ? unlimitedArrivals : arrivals)
                        .add(System.nanoTime());
        admin.basicConsume(queue, true, onMessage, tag -> {});
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        List<AmqpRelay> relays = new ArrayList<>();
        List<Postbox> engines = new ArrayList<>();
        for (AtomicInteger completed : List.of(first, second)) {
            AmqpRelay relay = relay(b -> b.destination(
                    AmqpDestination.of("limited", exchange, "routed").withRateLimit(perSecond)));
            relays.add(relay);
            engines.add(build(Postbox.builder(db).module(relay).listener(new PostboxListener() {
                @Override
                public void completed(Job job, Duration duration) {
                    completed.incrementAndGet();
                }
            })));
        }
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            requests.add(relays.get(0).message("limited", Map.of("n", i), "limited-" + i));
        }
        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            engines.get(0).outbox().enqueueAll(c, requests);
            c.commit();
        }

        long started = System.nanoTime();
        engines.forEach(Postbox::start);
        await().atMost(Duration.ofSeconds(10)).until(() -> arrivals.size() >= perSecond + 5);
        commit(engines.get(1), relays.get(1).message("orders", Map.of("n", "unlimited"), "unlimited-1"));
        await().atMost(Duration.ofSeconds(3))
                .alias("a destination without a limit is not held up by the limited one's backlog")
                .until(() -> unlimitedArrivals.size() == 1);
        assertThat(rig.count("SELECT count(*) FROM outbox_job WHERE endpoint = 'limited'"))
                .as("the limited backlog is still waiting")
                .isPositive();

        await().atMost(Duration.ofSeconds(30)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        await().atMost(Duration.ofSeconds(5)).until(() -> arrivals.size() == messages);
        List<Long> times = arrivals.stream().sorted().toList();
        double span = (times.get(messages - 1) - started) / 1e9;
        assertThat(span)
                .as("(messages - burst) / rate seconds at least, for both engines together")
                .isGreaterThan((messages - perSecond) / (double) perSecond * 0.9);
        assertThat(busiestSecond(times))
                .as("rate + burst, with a little arrival jitter")
                .isLessThanOrEqualTo(2 * perSecond + 2);
        assertThat(first.get()).as("the first engine relayed some").isPositive();
        assertThat(second.get()).as("the second engine relayed some").isPositive();
        assertThat(rig.count("SELECT max(attempts) FROM outbox_job_archive"))
                .as("waiting for the limit spends no attempt")
                .isEqualTo(1);
        assertThat(rig.text("SELECT string_agg(DISTINCT endpoint, ',') FROM outbox_rate_bucket"))
                .as("one bucket for the destination, shared by both engines")
                .isEqualTo("amqp:limited");
    }

    static int busiestSecond(List<Long> sortedNanos) {
        int busiest = 0;
        for (int i = 0, j = 0; i < sortedNanos.size(); i++) {
            while (j < sortedNanos.size() && sortedNanos.get(j) - sortedNanos.get(i) < 1_000_000_000L) {
                j++;
            }
            busiest = Math.max(busiest, j - i);
        }
        return busiest;
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
                .until(() -> rig.text("SELECT last_error FROM outbox_job"), e -> e.contains("312 NO_ROUTE"));
        assertThat(rig.text("SELECT last_error FROM outbox_job"))
                .contains("AMQP destination 'unrouted'")
                .contains("routing key 'nobody-listens'");

        admin.queueBind(queue, exchange, "nobody-listens");
        List<GetResponse> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            received.addAll(drain());
            return !received.isEmpty();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
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
        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_dead_letter") == 1);
        assertThat(rig.text("SELECT last_error FROM outbox_dead_letter"))
                .contains("AMQP destination 'missing'")
                .contains("404 NOT_FOUND");
        assertThat(rig.count("SELECT attempts FROM outbox_dead_letter")).isEqualTo(3);

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
                        .retryPolicy(EngineRig.FAST_RETRIES)));

        commit(postbox, relay.message("orders", Map.of("n", 1), null));

        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
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
