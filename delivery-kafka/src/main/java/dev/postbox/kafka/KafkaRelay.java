package dev.postbox.kafka;

import dev.postbox.BatchHandlerRegistration;
import dev.postbox.BrokerRelay;
import dev.postbox.HandlerRegistration;
import dev.postbox.Postbox;
import dev.postbox.RateLimits;
import dev.postbox.Require;
import dev.postbox.RetryPolicy;
import dev.postbox.kafka.internal.KafkaBatchSender;
import dev.postbox.kafka.internal.RelayProducer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Relays jobs to Kafka. A message is a job ({@link #message}) written with the business change in
 * the caller's transaction; the relay's batch handler sends the claimed jobs together through one
 * idempotent producer ({@code acks=all}, {@code enable.idempotence=true}) and each job completes only
 * after the broker acknowledged its record. Refused records fail their own job with the broker's
 * reason: too large, an invalid topic or a missing authorisation are dead-lettered at once,
 * everything else is retried with backoff.
 *
 * <p>The job's ordering key is the record key: jobs of one ordering key run one at a time in
 * enqueue order, and their records land in one partition in that order. Delivery to the broker is
 * at least once: a worker that dies after the acknowledgement and before the completion commits
 * sends the record again, with the same {@code postbox-key} header (the job's stable key), by which a
 * consumer deduplicates.
 *
 * <pre>{@code
 * KafkaRelay relay = KafkaRelay.builder(Map.of("bootstrap.servers", "broker-1:9092"))
 *         .destination(KafkaDestination.of("orders", "orders.events"))
 *         .build();
 * Postbox postbox = Postbox.builder(dataSource).module(relay).build();
 * // in the business transaction:
 * relay.send("orders", orderCreated, "order-4711-created");
 * postbox.outbox().enqueue(relay.messageBuilder("orders", orderShipped, "order-4711-shipped")
 *         .orderingKey("order-4711")   // the record key
 *         .build());
 * }</pre>
 *
 * <p>A destination may have a rate limit ({@link KafkaDestination#withRateLimit}): a token bucket
 * shared by every process through the database, so the limit holds across the cluster. Records over
 * it are snoozed to their slot of the limit's line, without spending an attempt.
 */
public final class KafkaRelay extends BrokerRelay<KafkaDestination> {

    /** The job kind of relay messages. */
    public static final String KIND = "postbox.kafka";

    /** The default retry policy: base 1 s, cap 5 min, 15 attempts (about an hour). */
    public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.custom()
            .base(Duration.ofSeconds(1))
            .cap(Duration.ofMinutes(5))
            .maxAttempts(15)
            .build();

    /** The default longest time from sending a record to its acknowledgement. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

    /** The default largest batch of jobs sent together. */
    public static final int DEFAULT_MAX_BATCH_SIZE = 500;

    private final RelayProducer producer;
    private final KafkaBatchSender sender;
    private final int maxBatchSize;

    private KafkaRelay(Builder b) {
        super(KIND, b);
        this.producer = new RelayProducer(b.producerConfig, b.sendTimeout);
        this.sender = new KafkaBatchSender(destinations(), producer, b.sendTimeout, b.listener);
        this.maxBatchSize = b.maxBatchSize;
    }

    /**
     * A builder on Kafka producer settings: {@code bootstrap.servers} and whatever security and
     * tuning the cluster needs. The relay sets {@code acks=all}, {@code enable.idempotence=true}, the
     * serializers and the timeouts; settings that contradict them are refused.
     */
    public static Builder builder(Map<String, ?> producerConfig) {
        return new Builder(producerConfig);
    }

    /**
     * The registration of the relay's batch handler, with its batch size and retry policy. Register
     * the relay with {@link Postbox.Builder#module} rather than this alone: rate limits and {@link
     * #send} need the relay installed.
     */
    public BatchHandlerRegistration registration() {
        return BatchHandlerRegistration.of(KIND, sender)
                .maxBatchSize(maxBatchSize)
                .retryPolicy(retryPolicy());
    }

    /** None: the relay sends with a batch handler ({@link #batchHandlers()}). */
    @Override
    public List<HandlerRegistration> handlers() {
        return List.of();
    }

    /** The relay's batch handler, for {@link Postbox.Builder#module}. */
    @Override
    public List<BatchHandlerRegistration> batchHandlers() {
        return List.of(registration());
    }

    @Override
    protected void installRateLimits(RateLimits rateLimits) {
        sender.install(rateLimits);
    }

    /**
     * Adds the relay to the engine builder as a module and returns it.
     *
     * @deprecated the relay is a {@link dev.postbox.PostboxModule}: use {@code Postbox.Builder.module(relay)}
     */
    @Deprecated(forRemoval = true)
    public Postbox.Builder installInto(Postbox.Builder builder) {
        return builder.module(this);
    }

    /**
     * Closes the producer, after sending what it still buffers (at most 5 s). Close it after the
     * engine it is installed in has stopped (the Spring Boot starter does): a batch still waiting for
     * acknowledgements fails and is retried.
     */
    @Override
    public void close() {
        producer.close();
    }

    /** Builds a {@link KafkaRelay}; every setter validates its argument. */
    public static final class Builder extends BrokerRelay.Builder<KafkaDestination, Builder> {
        private final Map<String, Object> producerConfig;
        private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
        private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
        private KafkaSendListener listener = KafkaSendListener.NONE;

        private Builder(Map<String, ?> producerConfig) {
            super("Kafka", "a Kafka relay", DEFAULT_RETRY_POLICY);
            Require.notNull(producerConfig, "producerConfig");
            this.producerConfig = new LinkedHashMap<>(producerConfig);
        }

        /**
         * The longest a record may take from being sent to its acknowledgement, the producer's
         * {@code delivery.timeout.ms} and {@code max.block.ms}; the job's attempt fails after it. At
         * least 1 s. Default 30 s.
         */
        public Builder sendTimeout(Duration sendTimeout) {
            Require.notNull(sendTimeout, "sendTimeout");
            if (sendTimeout.compareTo(Duration.ofSeconds(1)) < 0 || sendTimeout.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("sendTimeout must be from 1 s to 1 h, got " + sendTimeout);
            }
            this.sendTimeout = sendTimeout;
            return this;
        }

        /** The largest batch of jobs sent together. Default {@value #DEFAULT_MAX_BATCH_SIZE}. */
        public Builder maxBatchSize(int maxBatchSize) {
            if (maxBatchSize < 1 || maxBatchSize > BatchHandlerRegistration.MAX_BATCH_SIZE_LIMIT) {
                throw new IllegalArgumentException("maxBatchSize must be from 1 to "
                        + BatchHandlerRegistration.MAX_BATCH_SIZE_LIMIT + ", got " + maxBatchSize);
            }
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        /** Told about each record's acknowledgement or failure (the Spring Boot starter's metrics). */
        public Builder listener(KafkaSendListener listener) {
            this.listener = Require.notNull(listener, "listener");
            return this;
        }

        /**
         * @throws IllegalStateException without a destination
         * @throws IllegalArgumentException if the producer settings contradict the relay's
         */
        public KafkaRelay build() {
            return new KafkaRelay(this);
        }
    }
}
