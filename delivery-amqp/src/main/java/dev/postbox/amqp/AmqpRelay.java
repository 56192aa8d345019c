package dev.postbox.amqp;

import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.BrokerRelay;
import dev.postbox.PublishingRelay;
import dev.postbox.RelayPublishHandler;
import dev.postbox.Require;
import dev.postbox.RetryPolicy;
import dev.postbox.amqp.internal.AmqpPublishHandler;
import dev.postbox.amqp.internal.ConfirmedPublisher;
import java.time.Duration;

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
public final class AmqpRelay extends PublishingRelay<AmqpDestination> {

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

    private final ConfirmedPublisher publisher;
    private final AmqpPublishHandler handler;

    private AmqpRelay(Builder b) {
        super(KIND, b);
        this.publisher = new ConfirmedPublisher(b.factory, b.confirmTimeout);
        this.handler = new AmqpPublishHandler(destinations(), publisher);
    }

    /** A builder on a RabbitMQ connection factory (host, credentials, TLS, virtual host). */
    public static Builder builder(ConnectionFactory factory) {
        return new Builder(factory);
    }

    @Override
    protected RelayPublishHandler<AmqpDestination> publishHandler() {
        return handler;
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
    public static final class Builder extends BrokerRelay.Builder<AmqpDestination, Builder> {
        private final ConnectionFactory factory;
        private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;

        private Builder(ConnectionFactory factory) {
            super("AMQP", "an AMQP relay", DEFAULT_RETRY_POLICY);
            this.factory = Require.notNull(factory, "connectionFactory");
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

        /** @throws IllegalStateException without a destination */
        public AmqpRelay build() {
            return new AmqpRelay(this);
        }
    }
}
