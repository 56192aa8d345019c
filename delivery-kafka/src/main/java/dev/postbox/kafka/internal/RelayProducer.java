package dev.postbox.kafka.internal;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * The relay's one producer, shared by its worker threads (a Kafka producer is thread-safe and
 * batches records of concurrent senders). It is created on first use and replaced after an error
 * that leaves it unusable (the producer closed, its idempotence state lost).
 */
public final class RelayProducer implements AutoCloseable {

    private final Map<String, Object> config;
    private @Nullable Producer<byte[], byte[]> producer;
    private boolean closed;

    /**
     * @param userConfig the caller's producer settings (bootstrap servers, security, tuning)
     * @param sendTimeout the longest a record may take from {@code send} to its acknowledgement
     * @throws IllegalArgumentException if the settings contradict what the relay needs
     */
    public RelayProducer(Map<String, Object> userConfig, Duration sendTimeout) {
        this.config = config(userConfig, sendTimeout);
    }

    static Map<String, Object> config(Map<String, Object> userConfig, Duration sendTimeout) {
        Map<String, Object> config = new HashMap<>(userConfig);
        Object servers = config.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        if (servers == null || servers.toString().isBlank()) {
            throw new IllegalArgumentException("the Kafka producer settings name no bootstrap.servers: give the"
                    + " brokers to connect to, e.g. bootstrap.servers=broker-1:9092");
        }
        require(config, ProducerConfig.ACKS_CONFIG, "all", "-1");
        require(config, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        refuse(config, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        refuse(config, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        refuse(config, ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        long timeout = sendTimeout.toMillis();
        long linger = Long.parseLong(
                config.getOrDefault(ProducerConfig.LINGER_MS_CONFIG, "5").toString());
        // The producer's own bound on a record, acknowledgement included: every callback comes within it.
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
        long request = Long.parseLong(config.getOrDefault(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000")
                .toString());
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(1, Math.min(request, timeout - linger)));
        config.put(ProducerConfig.LINGER_MS_CONFIG, (int) linger);
        config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "postbox-relay");
        return config;
    }

    private static void require(Map<String, Object> config, String name, String... allowed) {
        Object value = config.get(name);
        if (value == null) {
            return;
        }
        for (String ok : allowed) {
            if (ok.equalsIgnoreCase(value.toString().trim())) {
                return;
            }
        }
        throw new IllegalArgumentException("the Kafka producer setting " + name + "=" + value + " is not allowed: the"
                + " relay completes a job only once every in-sync replica has the record, without duplicates"
                + " from the producer's own retries; remove the setting (the relay sets " + name + "="
                + allowed[0] + ")");
    }

    private static void refuse(Map<String, Object> config, String name) {
        if (config.containsKey(name)) {
            throw new IllegalArgumentException("the Kafka producer setting " + name + " is the relay's own: remove it"
                    + " (records are the job's JSON payload as bytes, sent without Kafka transactions)");
        }
    }

    /** The producer, created if there is none. */
    public synchronized Producer<byte[], byte[]> get() {
        if (closed) {
            throw new IllegalStateException("the Kafka relay is closed");
        }
        if (producer == null) {
            producer = new KafkaProducer<>(config);
        }
        return producer;
    }

    /** Closes {@code broken} (if it is still the current producer) so that the next use creates a new one. */
    public void discard(Producer<byte[], byte[]> broken) {
        synchronized (this) {
            if (producer != broken) {
                return;
            }
            producer = null;
        }
        broken.close(Duration.ZERO);
    }

    /** Sends what is buffered (at most the send timeout) and closes the producer. */
    @Override
    public void close() {
        Producer<byte[], byte[]> last;
        synchronized (this) {
            closed = true;
            last = producer;
            producer = null;
        }
        if (last != null) {
            last.close(Duration.ofSeconds(5));
        }
    }
}
