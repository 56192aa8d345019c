package dev.postbox.benchmarks;

import dev.postbox.JobRequest;
import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaRelay;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Scenario kafka-relay: relay throughput to Kafka against the same broker's producer floor, in the
 * same run. The floor is a bare idempotent producer ({@code acks=all}, the relay's settings) sending
 * the same records (JSON value, {@code postbox-key} header, the same keys) as fast as it can and
 * waiting for every acknowledgement. The relay run enqueues the same number of relay jobs (in
 * transactions of 1,000) before the engine starts; its clock runs from {@code start()} to the
 * commit of the last completion. Both topics are checked to hold exactly the records sent.
 *
 * <p>The broker is a KRaft broker started in this JVM (it shares the machine's CPUs with the engine
 * and PostgreSQL, so both numbers are lower than on a separate broker) unless {@code
 * bench.kafkaBootstrap} names one.
 */
final class KafkaRelayBench {

    static final String NAME = "kafka-relay";

    private static final Logger log = LoggerFactory.getLogger(KafkaRelayBench.class);

    /** Sizes: {@code bench.kafkaMessages}, {@code bench.kafkaPartitions}, {@code bench.kafkaKeys} (0: no record key). */
    record Settings(int messages, int partitions, int keys, int maxBatchSize) {
        static Settings fromSystemProperties() {
            return new Settings(
                    Integer.getInteger("bench.kafkaMessages", 200_000),
                    Integer.getInteger("bench.kafkaPartitions", 6),
                    Integer.getInteger("bench.kafkaKeys", 0),
                    Integer.getInteger("bench.kafkaMaxBatchSize", KafkaRelay.DEFAULT_MAX_BATCH_SIZE));
        }
    }

    /** spring-kafka-test's broker on Kafka 4.3.1: its own getBrokersAsString() calls a removed test-kit method. */
    static final class KraftBroker extends EmbeddedKafkaKraftBroker {
        KraftBroker(int partitions) {
            super(1, partitions);
        }

        @Override
        public String getBrokersAsString() {
            return getCluster().bootstrapServers();
        }
    }

    private KafkaRelayBench() {}

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        String external = System.getProperty("bench.kafkaBootstrap");
        KraftBroker embedded = null;
        if (external == null) {
            embedded = new KraftBroker(settings.partitions());
            embedded.afterPropertiesSet();
        }
        String bootstrap = external != null ? external : embedded.getBrokersAsString();
        try {
            String suffix = UUID.randomUUID().toString().substring(0, 8);
            String floorTopic = "bench-floor-" + suffix;
            String relayTopic = "bench-relay-" + suffix;
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(
                                new NewTopic(floorTopic, settings.partitions(), (short) 1),
                                new NewTopic(relayTopic, settings.partitions(), (short) 1)))
                        .all()
                        .get();
            }
            double floorSeconds = floor(bootstrap, floorTopic, settings);
            double floorRate = settings.messages() / floorSeconds;
            log.info("kafka-relay: bare producer {} messages/s", Env.round(floorRate, 0));
            Map<String, Object> r = relay(env, bootstrap, relayTopic, settings);
            Double relayRate = (Double) r.get("jobsPerSecond");
            r.put("messagesPerSecond", relayRate);
            r.put("producerFloorMessagesPerSecond", Env.round(floorRate, 1));
            r.put("producerFloorSeconds", Env.round(floorSeconds, 3));
            r.put("ratioToProducerFloor", relayRate == null ? null : Env.round(relayRate / floorRate, 3));
            r.put("floorRecordsInTopic", recordsIn(bootstrap, floorTopic, settings.partitions()));
            r.put("relayRecordsInTopic", recordsIn(bootstrap, relayTopic, settings.partitions()));
            r.put("partitions", settings.partitions());
            r.put("keys", settings.keys());
            r.put("maxBatchSize", settings.maxBatchSize());
            r.put("broker", external != null ? "external" : "embedded KRaft broker in this JVM");
            return r;
        } finally {
            if (embedded != null) {
                embedded.destroy();
            }
        }
    }

    private static byte @Nullable [] key(int i, Settings settings) {
        return settings.keys() == 0 ? null : ("key-" + (i % settings.keys())).getBytes(StandardCharsets.UTF_8);
    }

    private static String payload(int i) {
        return "{\"order\":" + i + ",\"status\":\"created\",\"amount\":4711}";
    }

    /** The bare producer: same settings as the relay's producer, every acknowledgement awaited. */
    private static double floor(String bootstrap, String topic, Settings settings) throws InterruptedException {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("acks", "all");
        config.put("enable.idempotence", true);
        config.put("linger.ms", 5);
        config.put("key.serializer", ByteArraySerializer.class);
        config.put("value.serializer", ByteArraySerializer.class);
        CountDownLatch acked = new CountDownLatch(settings.messages());
        AtomicLong failures = new AtomicLong();
        long t0 = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < settings.messages(); i++) {
                RecordHeaders headers = new RecordHeaders();
                headers.add("postbox-key", ("floor-" + i).getBytes(StandardCharsets.UTF_8));
                headers.add("content-type", "application/json".getBytes(StandardCharsets.UTF_8));
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                null,
                                null,
                                key(i, settings),
                                payload(i).getBytes(StandardCharsets.UTF_8),
                                headers),
                        (metadata, error) -> {
                            if (error != null) {
                                failures.incrementAndGet();
                            }
                            acked.countDown();
                        });
            }
            if (!acked.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the bare producer's records were not all acknowledged in 10 min");
            }
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " records of the bare producer failed");
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private static Map<String, Object> relay(Env env, String bootstrap, String topic, Settings settings)
            throws Exception {
        try (KafkaRelay relay = KafkaRelay.builder(Map.of("bootstrap.servers", bootstrap, "linger.ms", "5"))
                .destination(KafkaDestination.of("bench", topic))
                .maxBatchSize(settings.maxBatchSize())
                .build()) {
            return RelayRun.run(env, NAME, relay, settings.messages(), i -> {
                JobRequest.Builder b = relay.messageBuilder("bench", Map.of("order", i), "relay-" + i);
                if (settings.keys() > 0) {
                    b.orderingKey("key-" + (i % settings.keys()));
                }
                return b.build();
            });
        }
    }

    private static long recordsIn(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            long total = 0;
            for (ListOffsetsResult.ListOffsetsResultInfo info :
                    admin.listOffsets(latest).all().get().values()) {
                total += info.offset();
            }
            return total;
        }
    }
}
