package dev.postbox.amqp;

import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.EnqueueResult;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.PostboxModule;
import dev.postbox.RelayOutbox;
import dev.postbox.RetryPolicy;
import dev.postbox.amqp.internal.AmqpPublishHandler;
import dev.postbox.amqp.internal.ConfirmedPublisher;
import dev.postbox.amqp.internal.Require;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Relays jobs to RabbitMQ. A message is a job ({@link #message}) written with the business change in
 * the caller's transaction; the relay's handler publishes it, mandatory and with publisher confirms,
 * and the job completes only after the broker confirmed it and routed it to a queue. Unroutable
 * messages (returned), refused ones (nacked), unconfirmed ones and broker errors fail the attempt
 * with the broker's reason: retried with backoff, then dead-lettered.
 *
 * <p>Delivery to the broker is at least once: a worker that dies after the confirm and before the
 * completion commits publishes the message again on the next attempt. Every attempt carries the
 * same {@code message-id}, the job's stable key (the idempotency key given, or one generated per
 * job), so a consumer that deduplicates by message id applies it once.
 *
 * <pre>{@code
 * AmqpRelay relay = AmqpRelay.builder(connectionFactory)
 *         .destination(AmqpDestination.of("orders", "orders.exchange", "order.created"))
 *         .build();
 * Postbox postbox = Postbox.builder(dataSource).module(relay).build();
 * // in the business transaction:
 * relay.send("orders", orderCreated, "order-4711-created");
 * }</pre>
 *
 * <p>A destination may have a rate limit ({@link AmqpDestination#withRateLimit}): a token bucket
 * shared by every process through the database, so the limit holds across the cluster. Messages
 * over it are snoozed to their slot of the limit's line, without spending an attempt.
 */
public final class AmqpRelay implements PostboxModule, AutoCloseable {

    /** The job kind of relay messages. */
    public static final String KIND = "postbox.amqp";

    /** The default retry policy: base 1 s, cap 5 min, 15 attempts (about an hour). */
    public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.custom()
            .base(Duration.ofSeconds(1))
            .cap(Duration.ofMinutes(5))
            .maxAttempts(15)
            .build();

    /** The default time to wait for the broker's publisher confirm. */
    public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(10);

    private final Map<String, AmqpDestination> destinations;
    private final ConfirmedPublisher publisher;
    private final AmqpPublishHandler handler;
    private final RetryPolicy retryPolicy;
    private final String queue;
    private final RelayOutbox emitting;

    private AmqpRelay(Builder b) {
        this.destinations = Map.copyOf(b.destinations);
        this.publisher = new ConfirmedPublisher(b.factory, b.confirmTimeout);
        this.handler = new AmqpPublishHandler(destinations, publisher);
        this.retryPolicy = b.retryPolicy;
        this.queue = b.queue;
        this.emitting = new RelayOutbox("AMQP", KIND, b.queue, destinations.keySet());
    }

    /** A builder on a RabbitMQ connection factory (host, credentials, TLS, virtual host). */
    public static Builder builder(ConnectionFactory factory) {
        return new Builder(factory);
    }

    /**
     * A job that publishes {@code payload} (as JSON) to a destination; enqueue it in the business
     * transaction.
     *
     * @param key the idempotency key: also the message id every attempt carries; null for one
     *     generated per job
     * @throws IllegalArgumentException if the destination is not configured
     */
    public JobRequest message(String destination, Object payload, @Nullable String key) {
        return messageBuilder(destination, payload, key).build();
    }

    /** Like {@link #message}, as a builder (ordering key, priority, delay, headers). */
    public JobRequest.Builder messageBuilder(String destination, Object payload, @Nullable String key) {
        return emitting.messageBuilder(destination, payload, key);
    }

    /**
     * Writes a message to a destination in the current Spring transaction (the outbox's {@link
     * Outbox#enqueue(JobRequest)}); it is published if and only if the transaction commits. Sending
     * twice with one key yields one job.
     *
     * @param key the idempotency key and message id; null for one generated per job
     * @throws IllegalArgumentException if the destination is not configured
     * @throws IllegalStateException if the relay is not installed in an engine yet
     */
    public EnqueueResult send(String destination, Object payload, @Nullable String key) {
        return emitting.send(message(destination, payload, key));
    }

    /** Like {@link #send(String, Object, String)}, in the transaction of {@code connection}. */
    public EnqueueResult send(Connection connection, String destination, Object payload, @Nullable String key) {
        return emitting.send(connection, message(destination, payload, key));
    }

    /**
     * The registration of the relay's handler, with its retry policy. Register the relay with {@link
     * dev.postbox.Postbox.Builder#module} rather than this alone: rate limits and {@link #send} need
     * the relay installed.
     */
    public HandlerRegistration registration() {
        return HandlerRegistration.of(KIND, handler).retryPolicy(retryPolicy);
    }

    /** The relay's handler, for {@link dev.postbox.Postbox.Builder#module}. */
    @Override
    public List<HandlerRegistration> handlers() {
        return List.of(registration());
    }

    /** Binds the relay to its engine: its outbox for {@link #send}, its shared buckets for rate limits. */
    @Override
    public void install(Context context) {
        handler.install(context.rateLimits());
        emitting.install(context.outbox());
    }

    /** The configured destinations, by name. */
    public Map<String, AmqpDestination> destinations() {
        return destinations;
    }

    /**
     * Closes the relay's connection to the broker. Close it after the engine it is installed in has
     * stopped (the Spring Boot starter does): a publish still running fails and is retried.
     */
    @Override
    public void close() {
        publisher.close();
    }

    /** Builds an {@link AmqpRelay}; every setter validates its argument. */
    public static final class Builder {
        private final ConnectionFactory factory;
        private final Map<String, AmqpDestination> destinations = new LinkedHashMap<>();
        private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
        private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
        private String queue = JobRequest.DEFAULT_QUEUE;

        private Builder(ConnectionFactory factory) {
            this.factory = Require.notNull(factory, "connectionFactory");
        }

        /** Adds a destination; names are unique. */
        public Builder destination(AmqpDestination destination) {
            Require.notNull(destination, "destination");
            if (destinations.putIfAbsent(destination.name(), destination) != null) {
                throw new IllegalArgumentException("AMQP destination '" + destination.name() + "' is configured twice");
            }
            return this;
        }

        /** How long to wait for the broker's confirm before the attempt fails. Default 10 s. */
        public Builder confirmTimeout(Duration confirmTimeout) {
            Require.notNull(confirmTimeout, "confirmTimeout");
            if (confirmTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("confirmTimeout must be at least 1 ms, got " + confirmTimeout);
            }
            this.confirmTimeout = confirmTimeout;
            return this;
        }

        /** Retries of failed publishes. Default {@link #DEFAULT_RETRY_POLICY}. */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Require.notNull(retryPolicy, "retryPolicy");
            return this;
        }

        /** The queue relay jobs are enqueued on. Default {@value JobRequest#DEFAULT_QUEUE}. */
        public Builder queue(String queue) {
            this.queue = Require.notBlank(queue, "queue");
            return this;
        }

        public AmqpRelay build() {
            if (destinations.isEmpty()) {
                throw new IllegalStateException("an AMQP relay needs at least one destination");
            }
            return new AmqpRelay(this);
        }
    }
}
