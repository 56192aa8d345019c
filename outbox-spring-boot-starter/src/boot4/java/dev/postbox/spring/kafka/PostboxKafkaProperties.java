package dev.postbox.spring.kafka;

import dev.postbox.JobRequest;
import dev.postbox.kafka.KafkaRelay;
import dev.postbox.spring.RetryProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.kafka.*}: the Kafka relay with {@code postbox-delivery-kafka}. The
 * relay is configured when {@code postbox.kafka.bootstrap-servers} is set; the defaults are {@code
 * KafkaRelay}'s.
 */
@ConfigurationProperties("postbox.kafka")
public class PostboxKafkaProperties {

    /** Whether to configure the Kafka relay when postbox-delivery-kafka is on the classpath. */
    private boolean enabled = true;

    /** The brokers to connect to first (host:port); the producer's bootstrap.servers. */
    private List<String> bootstrapServers = new ArrayList<>();

    /**
     * Further Kafka producer settings, by their Kafka names (security.protocol, sasl.mechanism,
     * linger.ms, compression.type, ...). acks, enable.idempotence, the serializers and
     * transactional.id are the relay's own and refused here.
     */
    private Map<String, String> producer = new LinkedHashMap<>();

    /** Destinations by the name jobs use: the topic, and optionally a rate limit. */
    private Map<String, Destination> destinations = new LinkedHashMap<>();

    /** The longest time from sending a record to its acknowledgement (at least 1 s). */
    private Duration sendTimeout = KafkaRelay.DEFAULT_SEND_TIMEOUT;

    /** The largest batch of relay jobs sent together. */
    private int maxBatchSize = KafkaRelay.DEFAULT_MAX_BATCH_SIZE;

    /** The queue relay jobs are enqueued on. */
    private String queue = JobRequest.DEFAULT_QUEUE;

    /** Retries of failed sends. */
    private final Retry retry = new Retry();

    /** How long the health check waits for the cluster to answer. */
    private Duration healthTimeout = Duration.ofSeconds(2);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getBootstrapServers() {
        return bootstrapServers;
    }

    public void setBootstrapServers(List<String> bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    public Map<String, String> getProducer() {
        return producer;
    }

    public void setProducer(Map<String, String> producer) {
        this.producer = producer;
    }

    public Map<String, Destination> getDestinations() {
        return destinations;
    }

    public void setDestinations(Map<String, Destination> destinations) {
        this.destinations = destinations;
    }

    public Duration getSendTimeout() {
        return sendTimeout;
    }

    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }

    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public Retry getRetry() {
        return retry;
    }

    public Duration getHealthTimeout() {
        return healthTimeout;
    }

    public void setHealthTimeout(Duration healthTimeout) {
        this.healthTimeout = healthTimeout;
    }

    /** One destination: where its records go. */
    public static class Destination {

        /** The topic records of this destination are sent to. */
        private String topic = "";

        /** The most records this process sends to the destination per second; 0 for no limit. */
        private int maxPerSecond = 0;

        public String getTopic() {
            return topic;
        }

        public void setTopic(String topic) {
            this.topic = topic;
        }

        public int getMaxPerSecond() {
            return maxPerSecond;
        }

        public void setMaxPerSecond(int maxPerSecond) {
            this.maxPerSecond = maxPerSecond;
        }
    }

    /** Retries of failed sends; defaults from {@code KafkaRelay.DEFAULT_RETRY_POLICY}. */
    public static class Retry extends RetryProperties {
        public Retry() {
            super(
                    KafkaRelay.DEFAULT_RETRY_POLICY.base(),
                    KafkaRelay.DEFAULT_RETRY_POLICY.cap(),
                    KafkaRelay.DEFAULT_RETRY_POLICY.maxAttempts());
        }
    }
}
