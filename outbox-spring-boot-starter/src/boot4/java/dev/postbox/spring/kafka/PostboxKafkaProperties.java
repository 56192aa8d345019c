package dev.postbox.spring.kafka;

import dev.postbox.kafka.KafkaRelay;
import dev.postbox.spring.RelayProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.kafka.*}: the Kafka relay with {@code postbox-delivery-kafka}. The
 * relay is configured when at least one destination is set; the defaults are {@code KafkaRelay}'s.
 */
@ConfigurationProperties("postbox.kafka")
public class PostboxKafkaProperties extends RelayProperties<PostboxKafkaProperties.Destination> {

    /** The brokers to connect to first (host:port); the producer's bootstrap.servers. */
    private List<String> bootstrapServers = new ArrayList<>();

    /**
     * Further Kafka producer settings, by their Kafka names (security.protocol, sasl.mechanism,
     * linger.ms, compression.type, ...). acks, enable.idempotence, the serializers and
     * transactional.id are the relay's own and refused here.
     */
    private Map<String, String> producer = new LinkedHashMap<>();

    /** The longest time from sending a record to its acknowledgement (at least 1 s). */
    private Duration sendTimeout = KafkaRelay.DEFAULT_SEND_TIMEOUT;

    /** The largest batch of relay jobs sent together. */
    private int maxBatchSize = KafkaRelay.DEFAULT_MAX_BATCH_SIZE;

    public PostboxKafkaProperties() {
        super(KafkaRelay.DEFAULT_RETRY_POLICY);
    }

    @Override
    protected String prefix() {
        return "postbox.kafka";
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

    /** One destination: the topic its records go to, and optionally a rate limit. */
    public static class Destination extends RelayProperties.Destination {

        /** The topic records of this destination are sent to. */
        private String topic = "";

        public String getTopic() {
            return topic;
        }

        public void setTopic(String topic) {
            this.topic = topic;
        }
    }
}
