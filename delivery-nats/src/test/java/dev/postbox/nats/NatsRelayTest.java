package dev.postbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.RetryPolicy;
import dev.postbox.testing.EngineRig;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
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
 * The NATS JetStream relay against the server on this machine (127.0.0.1:4222 with JetStream) and
 * real PostgreSQL: what is stored, with which id, that a republished copy is dropped by the stream,
 * and what a missing or wrong stream does to the job.
 */
class NatsRelayTest {

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String stream = "POSTBOX_TEST_" + suffix;
    private final String subject = "ptest." + suffix + ".orders";
    private final List<String> streams = new ArrayList<>();
    private EngineRig rig;
    private HikariDataSource db;
    private Connection nats;
    private JetStreamManagement jsm;

    @BeforeEach
    void setUp() throws Exception {
        rig = new EngineRig();
        db = rig.db();
        nats = Nats.connect(options());
        jsm = nats.jetStreamManagement();
        addStream(stream, "ptest." + suffix + ".orders");
    }

    private void addStream(String name, String subjects) throws Exception {
        jsm.addStream(StreamConfiguration.builder()
                .name(name)
                .subjects(subjects)
                .storageType(StorageType.Memory)
                .duplicateWindow(Duration.ofMinutes(2))
                .build());
        streams.add(name);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
        for (String s : streams) {
            jsm.deleteStream(s);
        }
        nats.close();
    }

    private static Options options() {
        return Options.builder()
                .server("nats://127.0.0.1:4222")
                .connectionTimeout(Duration.ofSeconds(5))
                .build();
    }

    private NatsRelay relay(UnaryOperator<NatsRelay.Builder> extra) {
        NatsRelay relay = extra.apply(NatsRelay.builder(options())
                        .retryPolicy(EngineRig.FAST_RETRIES)
                        .ackTimeout(Duration.ofMillis(500))
                        .destination(NatsDestination.of("orders", subject, stream))
                        .destination(NatsDestination.of("unstored", "ptest." + suffix + "-unstored.x"))
                        .destination(NatsDestination.of("wrong-stream", subject, "SOME_OTHER_STREAM")))
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

    private long stored(String name) throws Exception {
        return jsm.getStreamInfo(name).getStreamState().getMsgCount();
    }

    @Test
    void aCommittedMessageIsStoredWithItsKeyAsNatsMsgId() throws Exception {
        NatsRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(
                postbox,
                relay.messageBuilder("orders", Map.of("order", 4711), "order-4711-created")
                        .orderingKey("customer-7")
                        .build());

        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(stored(stream)).isEqualTo(1);
        MessageInfo m = jsm.getMessage(stream, 1);
        assertThat(m.getSubject()).isEqualTo(subject);
        assertThat(m.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo("order-4711-created");
        assertThat(m.getHeaders().getFirst("postbox-key")).isEqualTo("order-4711-created");
        assertThat(m.getHeaders().getFirst("postbox-ordering-key")).isEqualTo("customer-7");
        assertThat(new String(m.getData(), StandardCharsets.UTF_8)).isEqualToIgnoringWhitespace("{\"order\":4711}");
        assertThat(rig.count("SELECT count(*) FROM outbox_dead_letter")).isZero();
    }

    @Test
    void sendWritesTheMessageInTheCallersTransactionOnceTheRelayIsInstalled() throws Exception {
        NatsRelay relay = relay(b -> b);
        assertThatThrownBy(() -> relay.send("orders", Map.of("n", 0), "too-early"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not installed in an engine yet");
        start(Postbox.builder(db).module(relay));

        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            relay.send(c, "orders", Map.of("n", "ghost"), "ghost");
            c.rollback();
        }
        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            relay.send(c, "orders", Map.of("n", 1), "sent-1");
            relay.send(c, "orders", Map.of("n", 1), "sent-1");
            c.commit();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(stored(stream))
                .as("the rolled-back one never, the twice-sent one once")
                .isEqualTo(1);
        assertThat(jsm.getMessage(stream, 1).getHeaders().getFirst("Nats-Msg-Id"))
                .isEqualTo("sent-1");
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
        Dispatcher dispatcher = nats.createDispatcher(m -> {
            String id = m.getHeaders().getFirst("Nats-Msg-Id");
            (id.startsWith("unlimited") ? unlimitedArrivals : arrivals).add(System.nanoTime());
        });
        dispatcher.subscribe(subject);
        nats.flush(Duration.ofSeconds(5));
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        List<NatsRelay> relays = new ArrayList<>();
        List<Postbox> engines = new ArrayList<>();
        for (AtomicInteger completed : List.of(first, second)) {
            NatsRelay relay = relay(b ->
                    b.destination(NatsDestination.of("limited", subject, stream).withRateLimit(perSecond)));
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
        assertThat(arrivals).hasSize(messages);
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
        assertThat(rig.count("SELECT count(*) FROM outbox_dead_letter")).isZero();
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
        NatsRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        try (java.sql.Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().enqueue(c, relay.message("orders", Map.of("n", "ghost"), "ghost"));
            c.rollback();
        }
        commit(postbox, relay.message("orders", Map.of("n", "marker"), "marker"));

        await().atMost(Duration.ofSeconds(20)).until(() -> stored(stream) >= 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(stored(stream)).isEqualTo(1);
        assertThat(jsm.getMessage(stream, 1).getHeaders().getFirst("Nats-Msg-Id"))
                .isEqualTo("marker");
    }

    @Test
    void aCopyRepublishedAfterACrashBetweenAckAndCompletionIsDroppedByTheStream() throws Exception {
        NatsRelay relay = relay(b -> b);
        HandlerRegistration real = relay.registration();
        AtomicBoolean crashed = new AtomicBoolean();
        // The worker "dies" after the stream's acknowledgement and before the completion commits:
        // the attempt fails after the publish, and the engine publishes the job again.
        Postbox postbox = start(Postbox.builder(db)
                .handler(HandlerRegistration.of(NatsRelay.KIND, job -> {
                            real.handler().handle(job);
                            if (crashed.compareAndSet(false, true)) {
                                throw new IllegalStateException("the worker died after the stream's acknowledgement");
                            }
                        })
                        .retryPolicy(EngineRig.FAST_RETRIES)));

        commit(postbox, relay.message("orders", Map.of("n", 1), null));

        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(crashed).isTrue();
        assertThat(rig.count("SELECT attempts FROM outbox_job_archive"))
                .as("published twice")
                .isEqualTo(2);
        assertThat(stored(stream))
                .as("stored once: the second publish was a duplicate")
                .isEqualTo(1);
    }

    @Test
    void aSubjectNoStreamCapturesFailsWithTheReasonUntilAStreamDoes() throws Exception {
        NatsRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(postbox, relay.message("unstored", Map.of("n", 1), "unstored-1"));

        await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> rig.text("SELECT last_error FROM outbox_job"),
                        e -> e.contains("no acknowledgement from a stream"));
        assertThat(rig.text("SELECT last_error FROM outbox_job")).contains("NATS destination 'unstored'");

        String late = "POSTBOX_TEST_LATE_" + suffix;
        addStream(late, "ptest." + suffix + "-unstored.>");
        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(stored(late)).isEqualTo(1);
    }

    @Test
    void aWrongExpectedStreamIsDeadLetteredWithTheStreamsRefusal() throws Exception {
        NatsRelay relay = relay(b -> b.retryPolicy(RetryPolicy.custom()
                .base(Duration.ofMillis(50))
                .cap(Duration.ofMillis(100))
                .maxAttempts(2)
                .build()));
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(postbox, relay.message("wrong-stream", Map.of("n", 1), "wrong-1"));

        await().atMost(Duration.ofSeconds(20)).until(() -> rig.count("SELECT count(*) FROM outbox_dead_letter") == 1);
        assertThat(rig.text("SELECT last_error FROM outbox_dead_letter"))
                .contains("NATS destination 'wrong-stream'")
                .contains("the stream refused the message");
        assertThat(stored(stream)).isZero();
    }

    @Test
    void badConfigurationIsRefusedWithTheFix() {
        assertThatThrownBy(() -> NatsDestination.of("orders", "orders.*"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without the wildcards");
        assertThatThrownBy(() -> NatsDestination.of("orders eu", "orders"))
                .hasMessageContaining("destination name 'orders eu' is not valid");
        assertThatThrownBy(() -> NatsRelay.builder(options()).build()).hasMessageContaining("at least one destination");
        NatsRelay relay = relay(b -> b);
        assertThatThrownBy(() -> relay.message("nowhere", Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NATS destination 'nowhere' is not configured");
    }
}
