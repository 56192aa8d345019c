package dev.postbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.RetryPolicy;
import dev.postbox.testing.TestDatabase;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
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
 * The NATS JetStream relay against the server on this machine (127.0.0.1:4222 with JetStream) and
 * real PostgreSQL: what is stored, with which id, that a republished copy is dropped by the stream,
 * and what a missing or wrong stream does to the job.
 */
class NatsRelayTest {

    private static final RetryPolicy FAST = RetryPolicy.custom()
            .base(Duration.ofMillis(50))
            .cap(Duration.ofMillis(200))
            .maxAttempts(50)
            .build();

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String stream = "POSTBOX_TEST_" + suffix;
    private final String subject = "ptest." + suffix + ".orders";
    private final List<String> streams = new ArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private HikariDataSource db;
    private Connection nats;
    private JetStreamManagement jsm;

    @BeforeEach
    void setUp() throws Exception {
        db = TestDatabase.create();
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
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        for (String s : streams) {
            jsm.deleteStream(s);
        }
        nats.close();
        TestDatabase.drop(db);
    }

    private static Options options() {
        return Options.builder()
                .server("nats://127.0.0.1:4222")
                .connectionTimeout(Duration.ofSeconds(5))
                .build();
    }

    private NatsRelay relay(UnaryOperator<NatsRelay.Builder> extra) {
        NatsRelay relay = extra.apply(NatsRelay.builder(options())
                        .retryPolicy(FAST)
                        .ackTimeout(Duration.ofMillis(500))
                        .destination(NatsDestination.of("orders", subject, stream))
                        .destination(NatsDestination.of("unstored", "ptest." + suffix + "-unstored.x"))
                        .destination(NatsDestination.of("wrong-stream", subject, "SOME_OTHER_STREAM")))
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

    private long stored(String name) throws Exception {
        return jsm.getStreamInfo(name).getStreamState().getMsgCount();
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
    void aCommittedMessageIsStoredWithItsKeyAsNatsMsgId() throws Exception {
        NatsRelay relay = relay(b -> b);
        Postbox postbox = start(Postbox.builder(db).module(relay));

        commit(
                postbox,
                relay.messageBuilder("orders", Map.of("order", 4711), "order-4711-created")
                        .orderingKey("customer-7")
                        .build());

        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(stored(stream)).isEqualTo(1);
        MessageInfo m = jsm.getMessage(stream, 1);
        assertThat(m.getSubject()).isEqualTo(subject);
        assertThat(m.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo("order-4711-created");
        assertThat(m.getHeaders().getFirst("Postbox-Key")).isEqualTo("order-4711-created");
        assertThat(m.getHeaders().getFirst("Postbox-Ordering-Key")).isEqualTo("customer-7");
        assertThat(new String(m.getData(), StandardCharsets.UTF_8)).isEqualToIgnoringWhitespace("{\"order\":4711}");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isZero();
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
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
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
                        .retryPolicy(FAST)));

        commit(postbox, relay.message("orders", Map.of("n", 1), null));

        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(crashed).isTrue();
        assertThat(count("SELECT attempts FROM outbox_job_archive"))
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
                        () -> text("SELECT last_error FROM outbox_job"),
                        e -> e.contains("no acknowledgement from a stream"));
        assertThat(text("SELECT last_error FROM outbox_job")).contains("NATS destination 'unstored'");

        String late = "POSTBOX_TEST_LATE_" + suffix;
        addStream(late, "ptest." + suffix + "-unstored.>");
        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
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

        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_dead_letter") == 1);
        assertThat(text("SELECT last_error FROM outbox_dead_letter"))
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
