package dev.postbox.chaos;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.postbox.JobRequest;
import dev.postbox.amqp.AmqpDestination;
import dev.postbox.amqp.AmqpRelay;
import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaRelay;
import dev.postbox.nats.NatsDestination;
import dev.postbox.nats.NatsRelay;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The broker destinations of a chaos run, fresh per run: a topic ({@value #PARTITIONS} partitions) on
 * a Kafka broker started in this JVM (spring-kafka-test's KRaft broker, shared by the runs of the
 * JVM), a queue on the local RabbitMQ (127.0.0.1:5672, guest/guest) and a JetStream stream on the
 * local NATS server (127.0.0.1:4222, duplicate window {@link #DUPLICATE_WINDOW}). The producer writes
 * relay messages through the relays' own API (those relays are never started: they only build
 * jobs); the worker processes relay them ({@link BrokerRelays}); after the drain {@link #consumeInto}
 * reads every destination from its beginning, as a consumer would, into {@code chaos_broker_message}
 * for the checker ({@link BrokerCheck}).
 */
final class Brokers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Brokers.class);

    static final String KAFKA = "kafka";
    static final String AMQP = "amqp";
    static final String NATS = "nats";
    /** The brokers, as the producer's intent kinds and the checker's names. */
    static final List<String> ALL = List.of(KAFKA, AMQP, NATS);

    /** The one destination name of each relay. */
    static final String DESTINATION = "chaos";

    static final int PARTITIONS = 3;
    /**
     * Longer than any run (production at most 7 minutes in CI, then the drain): a republish is then
     * always inside the window, so a NATS duplicate means a copy under another {@code Nats-Msg-Id}
     * (the relay's defect), not a copy that waited behind the run's backlog longer than the stream
     * remembers (enqueue-to-effect p90 was 285 s in a loaded run, beyond the 2-minute default).
     */
    static final Duration DUPLICATE_WINDOW = Duration.ofMinutes(30);

    static final String RABBIT_HOST = "127.0.0.1";
    static final int RABBIT_PORT = 5672;
    static final String NATS_URL = "nats://127.0.0.1:4222";

    private static final Pattern TX = Pattern.compile("\"tx\"\\s*:\\s*(\\d+)");
    private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");

    private static EmbeddedKafkaKraftBroker kafkaBroker;

    private final String topic;
    private final String queue;
    private final String stream;
    private final String subject;
    private final KafkaRelay kafka;
    private final AmqpRelay amqp;
    private final NatsRelay nats;

    private Brokers(String topic, String queue, String stream, String subject) {
        this.topic = topic;
        this.queue = queue;
        this.stream = stream;
        this.subject = subject;
        this.kafka = KafkaRelay.builder(Map.of("bootstrap.servers", kafkaBootstrap()))
                .destination(KafkaDestination.of(DESTINATION, topic))
                .build();
        this.amqp = AmqpRelay.builder(rabbitFactory())
                .destination(AmqpDestination.queue(DESTINATION, queue))
                .build();
        this.nats = NatsRelay.builder(natsOptions())
                .destination(NatsDestination.of(DESTINATION, subject, stream))
                .build();
    }

    /** The run's destinations, created empty; fails naming the broker that does not answer. */
    static Brokers create(String runName) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String name = runName.replaceAll("[^A-Za-z0-9-]", "-") + "-" + suffix;
        Brokers b = new Brokers(name, name, "CHAOS_" + suffix.toUpperCase(java.util.Locale.ROOT), "chaos." + suffix);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(b.topic, PARTITIONS, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        try (com.rabbitmq.client.Connection c = rabbitFactory().newConnection("chaos-driver");
                Channel ch = c.createChannel()) {
            ch.queueDeclare(b.queue, false, false, false, null);
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "RabbitMQ does not answer on " + RABBIT_HOST + ":" + RABBIT_PORT
                            + " (guest/guest): start it (.ci/run starts it when it is down)",
                    e);
        }
        try (io.nats.client.Connection c = Nats.connect(natsOptions())) {
            c.jetStreamManagement()
                    .addStream(StreamConfiguration.builder()
                            .name(b.stream)
                            .subjects(b.subject)
                            .storageType(StorageType.Memory)
                            .duplicateWindow(DUPLICATE_WINDOW)
                            .build());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "NATS with JetStream does not answer on " + NATS_URL
                            + ": start it with -js (.ci/run starts it when it is down)",
                    e);
        }
        log.info(
                "broker destinations: Kafka topic {} at {}, RabbitMQ queue {}, NATS stream {} ({})",
                b.topic,
                kafkaBootstrap(),
                b.queue,
                b.stream,
                b.subject);
        return b;
    }

    /** The Kafka broker of this JVM, started on first use and stopped when the JVM exits. */
    static synchronized String kafkaBootstrap() {
        if (kafkaBroker == null) {
            KraftBroker broker = new KraftBroker(1, PARTITIONS);
            broker.brokerProperty("auto.create.topics.enable", "false");
            broker.afterPropertiesSet();
            Runtime.getRuntime().addShutdownHook(new Thread(Brokers::stopKafka, "chaos-kafka-stop"));
            kafkaBroker = broker;
        }
        return kafkaBroker.getBrokersAsString();
    }

    /** Stops this JVM's Kafka broker if it runs (the runs that follow in the JVM need none). */
    static synchronized void stopKafka() {
        if (kafkaBroker != null) {
            kafkaBroker.destroy();
            kafkaBroker = null;
        }
    }

    /**
     * spring-kafka-test's KRaft broker on Kafka 4.3.1: its {@code getBrokersAsString()} calls a
     * test-kit method that 4.3.1 no longer has; the test kit's own {@code bootstrapServers()} answers
     * the same (as in delivery-kafka's tests).
     */
    private static final class KraftBroker extends EmbeddedKafkaKraftBroker {
        KraftBroker(int count, int partitions) {
            super(count, partitions);
        }

        @Override
        public String getBrokersAsString() {
            return getCluster().bootstrapServers();
        }
    }

    static ConnectionFactory rabbitFactory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(RABBIT_HOST);
        f.setPort(RABBIT_PORT);
        f.setUsername("guest");
        f.setPassword("guest");
        f.setConnectionTimeout(5_000);
        return f;
    }

    static Options natsOptions() {
        return Options.builder()
                .server(NATS_URL)
                .connectionTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** The job kind the relay of {@code broker} runs. */
    static String jobKind(String broker) {
        return switch (broker) {
            case KAFKA -> KafkaRelay.KIND;
            case AMQP -> AmqpRelay.KIND;
            case NATS -> NatsRelay.KIND;
            default -> throw new IllegalArgumentException("no broker '" + broker + "'");
        };
    }

    /** The worker's {@code -D} properties: where its relays send. */
    Map<String, String> workerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("chaos.kafka.bootstrap", kafkaBootstrap());
        p.put("chaos.kafka.topic", topic);
        p.put("chaos.amqp.queue", queue);
        p.put("chaos.nats.subject", subject);
        p.put("chaos.nats.stream", stream);
        return p;
    }

    /** A relay message to {@code broker}'s destination, as an application writes one. */
    JobRequest.Builder message(String broker, Object payload, String key) {
        return switch (broker) {
            case KAFKA -> kafka.messageBuilder(DESTINATION, payload, key);
            case AMQP -> amqp.messageBuilder(DESTINATION, payload, key);
            case NATS -> nats.messageBuilder(DESTINATION, payload, key);
            default -> throw new IllegalArgumentException("no broker '" + broker + "'");
        };
    }

    /** One message as a consumer read it. */
    private record Read(String broker, int partition, long position, String key, String recordKey, String body) {}

    /**
     * Reads every destination from its beginning (Kafka: every partition up to its end offset;
     * RabbitMQ: the queue until it is empty; NATS: every stream sequence) into {@code
     * chaos_broker_message}. Returns the messages read per broker.
     */
    Map<String, Long> consumeInto(DataSource ds) throws Exception {
        List<Read> read = new ArrayList<>();
        readKafka(read);
        readRabbit(read);
        readNats(read);
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String b : ALL) {
            counts.put(b, 0L);
        }
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO chaos_broker_message"
                        + " (broker, part, pos, tx, seq, msg_key, record_key) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            int batched = 0;
            for (Read r : read) {
                counts.merge(r.broker(), 1L, Long::sum);
                ps.setString(1, r.broker());
                ps.setInt(2, r.partition());
                ps.setLong(3, r.position());
                setLong(ps, 4, number(TX, r.body()));
                setLong(ps, 5, number(SEQ, r.body()));
                ps.setString(6, r.key());
                ps.setString(7, r.recordKey());
                ps.addBatch();
                if (++batched % 1_000 == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
        return counts;
    }

    private void readKafka(List<Read> read) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                kafkaBootstrap(),
                "key.deserializer",
                ByteArrayDeserializer.class,
                "value.deserializer",
                ByteArrayDeserializer.class,
                "enable.auto.commit",
                "false",
                "auto.offset.reset",
                "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "reading Kafka topic " + topic + " did not reach its end offsets " + end + " within 120 s");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Header key = r.headers().lastHeader("postbox-key");
                    read.add(new Read(
                            KAFKA,
                            r.partition(),
                            r.offset(),
                            key == null ? null : utf8(key.value()),
                            r.key() == null ? null : utf8(r.key()),
                            utf8(r.value())));
                }
            }
        }
    }

    private void readRabbit(List<Read> read) throws Exception {
        try (com.rabbitmq.client.Connection c = rabbitFactory().newConnection("chaos-checker");
                Channel ch = c.createChannel()) {
            long position = 0;
            GetResponse r;
            while ((r = ch.basicGet(queue, true)) != null) {
                read.add(new Read(AMQP, 0, position++, r.getProps().getMessageId(), null, utf8(r.getBody())));
            }
        }
    }

    private void readNats(List<Read> read) throws Exception {
        try (io.nats.client.Connection c = Nats.connect(natsOptions())) {
            JetStreamManagement jsm = c.jetStreamManagement();
            StreamState state = jsm.getStreamInfo(stream).getStreamState();
            for (long seq = state.getFirstSequence();
                    state.getMsgCount() > 0 && seq <= state.getLastSequence();
                    seq++) {
                MessageInfo m;
                try {
                    m = jsm.getMessage(stream, seq);
                } catch (JetStreamApiException e) {
                    continue; // a sequence without a message (none are deleted here, but a gap is not a message)
                }
                String key = m.getHeaders() == null ? null : m.getHeaders().getFirst("Nats-Msg-Id");
                read.add(new Read(NATS, 0, seq, key, null, utf8(m.getData())));
            }
        }
    }

    private static Long number(Pattern p, String body) {
        Matcher m = p.matcher(body);
        return m.find() ? Long.valueOf(m.group(1)) : null;
    }

    private static void setLong(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, value);
        }
    }

    private static String utf8(byte[] bytes) {
        return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
    }

    /** Deletes the run's queue and stream (the topic goes with the JVM's broker). */
    @Override
    public void close() {
        kafka.close();
        amqp.close();
        nats.close();
        try (com.rabbitmq.client.Connection c = rabbitFactory().newConnection("chaos-driver");
                Channel ch = c.createChannel()) {
            ch.queueDelete(queue);
        } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
            log.warn("deleting RabbitMQ queue {} failed: {}", queue, e.toString());
        }
        try (io.nats.client.Connection c = Nats.connect(natsOptions())) {
            c.jetStreamManagement().deleteStream(stream);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            log.warn("deleting NATS stream {} failed: {}", stream, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
