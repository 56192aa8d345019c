package dev.postbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.BatchHandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.RetryPolicy;
import dev.postbox.testing.EngineRig;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The Kafka relay against a real broker started in the test JVM (spring-kafka-test's KRaft broker)
 * and real PostgreSQL: what is sent, with which key and headers, in which partition order, and what
 * a refusal does to the job.
 */
class KafkaRelayTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private static EmbeddedKafkaKraftBroker broker;

    /**
     * spring-kafka-test's KRaft broker on Kafka 4.3.1: its {@code getBrokersAsString()} calls a test-kit
     * method that 4.3.1 no longer has; the test kit's own {@code bootstrapServers()} answers the same.
     */
    static final class KraftBroker extends EmbeddedKafkaKraftBroker {
        KraftBroker(int count, int partitions) {
            super(count, partitions);
        }

        @Override
        public String getBrokersAsString() {
            return getCluster().bootstrapServers();
        }
    }

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String topic = "postbox-test-" + suffix;
    private final String tinyTopic = "postbox-tiny-" + suffix;
    private EngineRig rig;
    private HikariDataSource db;

    @BeforeAll
    static void startBroker() {
        broker = new KraftBroker(1, 3);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
    }

    @AfterAll
    static void stopBroker() {
        broker.destroy();
    }

    @BeforeEach
    void setUp() throws Exception {
        rig = new EngineRig();
        db = rig.db();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.getBrokersAsString()))) {
            admin.createTopics(List.of(
                            new NewTopic(topic, 3, (short) 1),
                            // The broker refuses records over 1 KiB on this topic.
                            new NewTopic(tinyTopic, 1, (short) 1).configs(Map.of("max.message.bytes", "1024"))))
                    .all()
                    .get();
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    private KafkaRelay relay(UnaryOperator<KafkaRelay.Builder> extra) {
        KafkaRelay relay = extra.apply(KafkaRelay.builder(Map.of("bootstrap.servers", broker.getBrokersAsString()))
                        .retryPolicy(EngineRig.FAST_RETRIES)
                        .destination(KafkaDestination.of("orders", topic))
                        .destination(KafkaDestination.of("tiny", tinyTopic)))
                .build();
        rig.closeAtEnd(relay);
        return relay;
    }

    private Postbox engine(Postbox.Builder builder) {
        return rig.build(builder, config -> config.concurrency(4));
    }

    private void commit(Postbox postbox, List<JobRequest> requests) throws SQLException {
        rig.commit(postbox, requests);
    }

    private List<ConsumerRecord<byte[], byte[]>> consume(String topic, int partitions, int expected) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= expected;
            });
            // Anything beyond the expected records (a duplicate) would be here by now too.
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        }
        return records;
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static String utf8(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    record Step(String key, int seq) {}

    @Test
    void orderingKeysBecomeRecordKeysAndKeepTheirOrderInOnePartitionWithKeyAndTraceHeaders() throws Exception {
        KafkaRelay relay = relay(b -> b);
        Postbox postbox = engine(Postbox.builder(db).module(relay));
        int keys = 4;
        int perKey = 15;
        List<JobRequest> requests = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                requests.add(relay.messageBuilder("orders", new Step("customer-" + k, seq), "c" + k + "-" + seq)
                        .orderingKey("customer-" + k)
                        .header("traceparent", TRACEPARENT)
                        .build());
            }
        }
        commit(postbox, requests);
        postbox.start();

        await().atMost(Duration.ofSeconds(60)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        List<ConsumerRecord<byte[], byte[]>> records = consume(topic, 3, keys * perKey);

        assertThat(records).hasSize(keys * perKey);
        Map<String, Set<Integer>> partitions = new HashMap<>();
        Map<String, List<String>> sequence = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) { // in offset order within each partition
            String key = utf8(r.key());
            partitions.computeIfAbsent(key, k -> new java.util.HashSet<>()).add(r.partition());
            sequence.computeIfAbsent(key, k -> new ArrayList<>()).add(header(r, "postbox-key"));
            assertThat(header(r, "traceparent")).isEqualTo(TRACEPARENT);
            assertThat(header(r, "content-type")).isEqualTo("application/json");
            assertThat(utf8(r.value())).contains("\"key\"").contains("\"seq\"");
        }
        assertThat(partitions)
                .hasSize(keys)
                .allSatisfy((key, in) ->
                        assertThat(in).as(key + " in one partition").hasSize(1));
        for (int k = 0; k < keys; k++) {
            List<String> expected = new ArrayList<>();
            for (int seq = 0; seq < perKey; seq++) {
                expected.add("c" + k + "-" + seq);
            }
            assertThat(sequence.get("customer-" + k)).as("customer-" + k).containsExactlyElementsOf(expected);
        }
        assertThat(rig.count("SELECT count(*) FROM outbox_dead_letter")).isZero();
    }

    @Test
    void claimedJobsAreSentAsOneBatchAndCompleteTogetherAfterTheAcknowledgement() throws Exception {
        KafkaRelay relay = relay(b -> b);
        List<Integer> batchSizes = new CopyOnWriteArrayList<>();
        BatchHandlerRegistration real = relay.registration();
        Postbox postbox = engine(Postbox.builder(db)
                .batchHandler(BatchHandlerRegistration.of(KafkaRelay.KIND, batch -> {
                            batchSizes.add(batch.jobs().size());
                            real.handler().handle(batch);
                        })
                        .retryPolicy(EngineRig.FAST_RETRIES)));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            requests.add(relay.message("orders", Map.of("n", i), "batch-" + i));
        }
        commit(postbox, requests);

        assertThat(postbox.runDueJobs()).isEqualTo(40);

        assertThat(batchSizes).containsExactly(40);
        assertThat(rig.count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"))
                .isEqualTo(40);
        assertThat(rig.count("SELECT count(DISTINCT finished_at) FROM outbox_job_archive"))
                .as("completed in one statement")
                .isOne();
        assertThat(consume(topic, 3, 40)).hasSize(40);
    }

    @Test
    void aRecordSentAgainAfterAFailureCarriesTheSameKeyAndHeader() throws Exception {
        KafkaRelay relay = relay(b -> b);
        BatchHandlerRegistration real = relay.registration();
        AtomicBoolean crashed = new AtomicBoolean();
        // The worker "dies" after the broker's acknowledgement and before the completion commits:
        // every member fails after the send, and the engine runs them again.
        Postbox postbox = engine(Postbox.builder(db)
                .batchHandler(BatchHandlerRegistration.of(KafkaRelay.KIND, batch -> {
                            real.handler().handle(batch);
                            if (crashed.compareAndSet(false, true)) {
                                batch.jobs()
                                        .forEach(job -> batch.fail(
                                                job, new IllegalStateException("the worker died after the ack")));
                            }
                        })
                        .retryPolicy(EngineRig.FAST_RETRIES)));
        commit(
                postbox,
                List.of(relay.messageBuilder("orders", Map.of("n", 1), null)
                        .orderingKey("order-1")
                        .build()));
        postbox.start();

        await().atMost(Duration.ofSeconds(30)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        List<ConsumerRecord<byte[], byte[]>> records = consume(topic, 3, 2);

        assertThat(records).hasSize(2);
        assertThat(records).extracting(r -> utf8(r.key())).containsOnly("order-1");
        assertThat(records)
                .extracting(ConsumerRecord::partition)
                .containsOnly(records.get(0).partition());
        assertThat(header(records.get(0), "postbox-key"))
                .as("a generated key, the same on both sends")
                .isNotBlank()
                .isEqualTo(header(records.get(1), "postbox-key"));
    }

    @Test
    void aRecordTheBrokerRefusesForGoodIsDeadLetteredWithTheBrokersReasonWhileItsBatchCompletes() throws Exception {
        KafkaRelay relay = relay(b -> b);
        Postbox postbox = engine(Postbox.builder(db).module(relay));
        commit(
                postbox,
                List.of(
                        relay.message("tiny", Map.of("text", "x".repeat(4000)), "too-large"),
                        relay.message("tiny", Map.of("text", "small"), "small")));

        assertThat(postbox.runDueJobs()).isEqualTo(2);

        assertThat(rig.count("SELECT count(*) FROM outbox_dead_letter")).isOne();
        assertThat(rig.text("SELECT last_error FROM outbox_dead_letter"))
                .contains("Kafka destination 'tiny' (topic '" + tinyTopic + "')")
                .contains("RecordTooLargeException")
                .contains("larger than the max message size the server will accept");
        assertThat(rig.count("SELECT attempts FROM outbox_dead_letter"))
                .as("at once")
                .isOne();
        assertThat(consume(tinyTopic, 1, 1))
                .extracting(r -> header(r, "postbox-key"))
                .containsExactly("small");
    }

    @Test
    void aMissingTopicIsRetriedWithTheReasonUntilItExists() throws Exception {
        String later = "postbox-later-" + suffix;
        KafkaRelay relay =
                relay(b -> b.sendTimeout(Duration.ofSeconds(2)).destination(KafkaDestination.of("later", later)));
        Postbox postbox = engine(Postbox.builder(db).module(relay));
        commit(postbox, List.of(relay.message("later", Map.of("n", 1), "later-1")));
        postbox.start();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> rig.text("SELECT last_error FROM outbox_job"), e -> e.contains("not present in metadata"));
        assertThat(rig.text("SELECT last_error FROM outbox_job")).contains("Kafka destination 'later'");
        assertThat(rig.count("SELECT count(*) FROM outbox_dead_letter")).isZero();

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.getBrokersAsString()))) {
            admin.createTopics(List.of(new NewTopic(later, 1, (short) 1))).all().get();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(consume(later, 1, 1))
                .extracting(r -> header(r, "postbox-key"))
                .containsExactly("later-1");
    }

    @Test
    void aBatchForAMissingTopicWaitsForItsMetadataOnceNotOncePerRecord() throws Exception {
        KafkaRelay relay = relay(b -> b.sendTimeout(Duration.ofSeconds(2))
                .retryPolicy(RetryPolicy.custom().maxAttempts(1).build())
                .destination(KafkaDestination.of("nowhere", "postbox-nowhere-" + suffix)));
        Postbox postbox = engine(Postbox.builder(db).module(relay));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requests.add(relay.message("nowhere", Map.of("n", i), "nowhere-" + i));
        }
        commit(postbox, requests);

        long t0 = System.nanoTime();
        assertThat(postbox.runDueJobs()).isEqualTo(20);

        assertThat(Duration.ofNanos(System.nanoTime() - t0))
                .as("one metadata wait of 2 s for the batch, not 20")
                .isLessThan(Duration.ofSeconds(15));
        assertThat(rig.count(
                        "SELECT count(*) FROM outbox_dead_letter WHERE last_error LIKE '%not present in metadata%'"))
                .isEqualTo(20);
    }

    @Test
    void aDestinationAtItsRateLimitSnoozesTheRestWithoutSpendingAttempts() throws Exception {
        KafkaRelay relay =
                relay(b -> b.destination(KafkaDestination.of("limited", topic).withRateLimit(2)));
        Postbox postbox = engine(Postbox.builder(db).module(relay));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            requests.add(relay.message("limited", Map.of("n", i), "limited-" + i));
        }
        commit(postbox, requests);

        postbox.runDueJobs();

        assertThat(rig.count("SELECT count(*) FROM outbox_job_archive"))
                .as("one second's burst")
                .isEqualTo(2);
        assertThat(rig.count("SELECT count(*) FROM outbox_job WHERE attempts = 0 AND state = 'pending'"))
                .as("the rest waits, uncharged")
                .isEqualTo(6);

        postbox.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> rig.count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(consume(topic, 3, 8)).hasSize(8);
    }

    @Test
    void aRateLimitIsSharedByTwoEnginesThroughTheDatabase() throws Exception {
        int perSecond = 5;
        KafkaRelay one =
                relay(b -> b.destination(KafkaDestination.of("limited", topic).withRateLimit(perSecond)));
        KafkaRelay two =
                relay(b -> b.destination(KafkaDestination.of("limited", topic).withRateLimit(perSecond)));
        Postbox first = engine(Postbox.builder(db).module(one));
        Postbox second = engine(Postbox.builder(db).module(two));
        // Both producers connected and knowing the topic, so that the two takes below are close together.
        commit(first, List.of(one.message("orders", Map.of("warm", 1), "warm-1")));
        first.runDueJobs();
        commit(second, List.of(two.message("orders", Map.of("warm", 2), "warm-2")));
        second.runDueJobs();
        String limited = "SELECT count(*) FROM outbox_job_archive WHERE endpoint = 'limited'";

        long t0 = System.nanoTime();
        commit(first, requests(one, "early"));
        first.runDueJobs();
        assertThat(rig.count(limited)).as("the first engine: the burst").isEqualTo(perSecond);
        commit(second, requests(two, "late"));
        second.runDueJobs();
        double elapsed = (System.nanoTime() - t0) / 1e9;

        long sent = rig.count(limited);
        assertThat(sent)
                .as("the second engine gets what the shared bucket refilled in %.2f s, not a burst of its own", elapsed)
                .isLessThanOrEqualTo(perSecond + (long) Math.ceil(perSecond * elapsed))
                .isLessThan(2L * perSecond);
        assertThat(rig.count("SELECT count(*) FROM outbox_job WHERE attempts = 0 AND state = 'pending'"))
                .as("the rest waits, uncharged")
                .isEqualTo(20 - sent);
        assertThat(rig.count("SELECT count(*) FROM outbox_rate_bucket WHERE endpoint = 'kafka:limited'"))
                .isEqualTo(1);
    }

    private static List<JobRequest> requests(KafkaRelay relay, String prefix) {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            requests.add(relay.message("limited", Map.of("n", i), prefix + "-" + i));
        }
        return requests;
    }

    @Test
    void badConfigurationIsRefusedWithTheFix() {
        String servers = broker.getBrokersAsString();
        KafkaDestination orders = KafkaDestination.of("orders", "t");
        assertThatThrownBy(() -> KafkaDestination.of("orders", "bad topic"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic 'bad topic' of destination 'orders' is not a valid Kafka topic name");
        assertThatThrownBy(
                        () -> KafkaRelay.builder(Map.of()).destination(orders).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no bootstrap.servers");
        assertThatThrownBy(() -> KafkaRelay.builder(Map.of("bootstrap.servers", servers, "acks", "1"))
                        .destination(orders)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acks=1 is not allowed")
                .hasMessageContaining("remove the setting");
        assertThatThrownBy(() -> KafkaRelay.builder(Map.of("bootstrap.servers", servers, "enable.idempotence", "false"))
                        .destination(orders)
                        .build())
                .hasMessageContaining("enable.idempotence=false is not allowed");
        assertThatThrownBy(() -> KafkaRelay.builder(Map.of("bootstrap.servers", servers, "transactional.id", "x"))
                        .destination(orders)
                        .build())
                .hasMessageContaining("transactional.id is the relay's own");
        assertThatThrownBy(() ->
                        KafkaRelay.builder(Map.of("bootstrap.servers", servers)).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("at least one destination");
        assertThatThrownBy(() -> KafkaRelay.builder(Map.of("bootstrap.servers", servers))
                        .destination(orders)
                        .destination(KafkaDestination.of("orders", "u")))
                .hasMessageContaining("'orders' is configured twice");
        KafkaRelay relay = relay(b -> b);
        assertThatThrownBy(() -> relay.message("nowhere", Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Kafka destination 'nowhere' is not configured");
    }
}
