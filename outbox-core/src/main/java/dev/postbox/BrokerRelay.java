package dev.postbox;

import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What every broker relay (Kafka, AMQP, NATS) has in common: its destinations, its retry policy, the
 * jobs it writes ({@link #message}, {@link #send}) through a {@link RelayOutbox}, and its install in
 * an engine as a {@link PostboxModule}. A relay adds what is its broker's own: its handler, its
 * connection, and its builder's own settings (on the common {@link Builder}); a relay that publishes
 * one job at a time extends {@link PublishingRelay}, which registers its handler.
 *
 * <pre>{@code
 * Postbox postbox = Postbox.builder(dataSource).module(relay).build();
 * // in the business transaction:
 * relay.send("orders", orderCreated, "order-4711-created");
 * }</pre>
 *
 * @param <D> the broker's destination
 */
public abstract class BrokerRelay<D extends RelayDestination> implements PostboxModule, AutoCloseable {

    private final Map<String, D> destinations;
    private final RetryPolicy retryPolicy;
    private final RelayOutbox emitting;

    /**
     * @param kind the relay's job kind
     * @param builder the relay's builder
     * @throws IllegalStateException without a destination
     */
    protected BrokerRelay(String kind, Builder<D, ?> builder) {
        Require.notNull(builder, "builder");
        if (builder.destinations.isEmpty()) {
            throw new IllegalStateException(builder.relay + " needs at least one destination");
        }
        this.destinations = Map.copyOf(builder.destinations);
        this.retryPolicy = builder.retryPolicy;
        this.emitting = new RelayOutbox(builder.broker, kind, builder.queue, destinations.keySet());
    }

    /**
     * A job that sends {@code payload} (as JSON) to a destination; enqueue it in the business
     * transaction.
     *
     * @param key the idempotency key: also the key every attempt carries to the broker, by which a
     *     consumer deduplicates; null for one generated per job
     * @throws IllegalArgumentException if the destination is not configured
     */
    public final JobRequest message(String destination, Object payload, @Nullable String key) {
        return messageBuilder(destination, payload, key).build();
    }

    /** Like {@link #message}, as a builder (ordering key, priority, delay, headers). */
    public final JobRequest.Builder messageBuilder(String destination, Object payload, @Nullable String key) {
        return emitting.messageBuilder(destination, payload, key);
    }

    /**
     * Writes a message to a destination in the current Spring transaction (the outbox's {@link
     * Outbox#enqueue(JobRequest)}); it is sent if and only if the transaction commits. Sending twice
     * with one key yields one job. For an ordering key, enqueue a {@link #messageBuilder} instead.
     *
     * @param key the idempotency key, carried by every attempt; null for one generated per job
     * @throws IllegalArgumentException if the destination is not configured
     * @throws IllegalStateException if the relay is not installed in an engine yet
     */
    public final EnqueueResult send(String destination, Object payload, @Nullable String key) {
        return emitting.send(message(destination, payload, key));
    }

    /** Like {@link #send(String, Object, String)}, in the transaction of {@code connection}. */
    public final EnqueueResult send(Connection connection, String destination, Object payload, @Nullable String key) {
        return emitting.send(connection, message(destination, payload, key));
    }

    /** The configured destinations, by name. */
    public final Map<String, D> destinations() {
        return destinations;
    }

    /** The retry policy of the relay's jobs, for its handler's registration. */
    protected final RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** Binds the relay to its engine: its outbox for {@link #send}, its shared buckets for rate limits. */
    @Override
    public final void install(Context context) {
        installRateLimits(context.rateLimits());
        emitting.install(context.outbox());
    }

    /** Hands the engine's shared buckets to the relay's handler (see {@link RelayDestination#buckets}). */
    protected abstract void installRateLimits(RateLimits rateLimits);

    /**
     * Closes the relay's connection to the broker. Close it after the engine it is installed in has
     * stopped (the Spring Boot starter does): a send still running fails and is retried.
     */
    @Override
    public abstract void close();

    /**
     * What every relay's builder has, each setter checking its argument: the destinations (names
     * unique), the retry policy and the queue. A relay's builder extends it with its broker's own
     * settings and {@code build()}.
     *
     * @param <D> the broker's destination
     * @param <B> the relay's builder, which the setters return
     */
    public abstract static class Builder<D extends RelayDestination, B extends Builder<D, B>> {
        private final String broker;
        private final String relay;
        private final Map<String, D> destinations = new LinkedHashMap<>();
        private RetryPolicy retryPolicy;
        private String queue = JobRequest.DEFAULT_QUEUE;

        /**
         * @param broker the broker's name in error messages ("Kafka", "AMQP", …)
         * @param relay the relay in error messages ("a Kafka relay", "an AMQP relay", …)
         * @param retryPolicy the relay's default retry policy
         */
        protected Builder(String broker, String relay, RetryPolicy retryPolicy) {
            this.broker = Require.notBlank(broker, "broker");
            this.relay = Require.notBlank(relay, "relay");
            this.retryPolicy = Require.notNull(retryPolicy, "retryPolicy");
        }

        /**
         * Adds a destination; names are unique.
         *
         * @throws IllegalArgumentException if it is null, or a destination of its name is configured
         */
        public B destination(D destination) {
            Require.notNull(destination, "destination");
            if (destinations.putIfAbsent(destination.name(), destination) != null) {
                throw new IllegalArgumentException(
                        broker + " destination '" + destination.name() + "' is configured twice");
            }
            return self();
        }

        /** Retries of failed sends. Default: the relay's {@code DEFAULT_RETRY_POLICY}. */
        public B retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Require.notNull(retryPolicy, "retryPolicy");
            return self();
        }

        /** The queue relay jobs are enqueued on. Default {@value JobRequest#DEFAULT_QUEUE}. */
        public B queue(String queue) {
            this.queue = Require.notBlank(queue, "queue");
            return self();
        }

        @SuppressWarnings("unchecked") // B is the builder's own class (see the type parameter)
        private B self() {
            return (B) this;
        }
    }
}
