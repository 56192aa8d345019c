package dev.postbox.nats;

import dev.postbox.BrokerRelay;
import dev.postbox.PublishingRelay;
import dev.postbox.RelayPublishHandler;
import dev.postbox.Require;
import dev.postbox.RetryPolicy;
import dev.postbox.nats.internal.JetStreamPublishHandler;
import io.nats.client.Options;
import java.time.Duration;

/**
 * Relays jobs to NATS JetStream. A message is a job ({@link #message}) written with the business
 * change in the caller's transaction; the relay's handler publishes it to its destination's subject
 * and the job completes only after a stream acknowledged it. No acknowledgement (no stream captures
 * the subject, the server is unreachable) and refusals (a wrong expected stream, a full stream)
 * fail the attempt with the reason: retried with backoff, then dead-lettered.
 *
 * <p>Every attempt carries the same {@code Nats-Msg-Id}, the job's stable key: a copy republished
 * after a crash between the acknowledgement and the job's completion is dropped by the stream as a
 * duplicate, as long as it comes within the stream's duplicate window (2 minutes by default; make it
 * longer than the relay's retry delays can be, see {@code docs/brokers.md}).
 *
 * <pre>{@code
 * NatsRelay relay = NatsRelay.builder(Options.builder().server("nats://127.0.0.1:4222").build())
 *         .destination(NatsDestination.of("orders", "orders.created", "ORDERS"))
 *         .build();
 * Postbox postbox = Postbox.builder(dataSource).module(relay).build();
 * // in the business transaction:
 * relay.send("orders", orderCreated, "order-4711-created");
 * }</pre>
 *
 * <p>A destination may have a rate limit ({@link NatsDestination#withRateLimit}): a token bucket
 * shared by every process through the database, so the limit holds across the cluster. Messages
 * over it are snoozed to their slot of the limit's line, without spending an attempt.
 */
public final class NatsRelay extends PublishingRelay<NatsDestination> {

    /** The job kind of relay messages. */
    public static final String KIND = "postbox.nats";

    /** The default retry policy: base 1 s, cap 30 s, 15 attempts (a few minutes, within a duplicate window of 10 min). */
    public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.custom()
            .base(Duration.ofSeconds(1))
            .cap(Duration.ofSeconds(30))
            .maxAttempts(15)
            .build();

    /** The default time to wait for the stream's acknowledgement. */
    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(5);

    private final JetStreamPublishHandler handler;

    private NatsRelay(Builder b) {
        super(KIND, b);
        this.handler = new JetStreamPublishHandler(destinations(), b.options, b.ackTimeout);
    }

    /** A builder on the NATS connection options (servers, credentials, TLS). */
    public static Builder builder(Options options) {
        return new Builder(options);
    }

    @Override
    protected RelayPublishHandler<NatsDestination> publishHandler() {
        return handler;
    }

    /**
     * Closes the relay's connection to the server. Close it after the engine it is installed in has
     * stopped (the Spring Boot starter does): a publish still running fails and is retried.
     */
    @Override
    public void close() {
        try {
            handler.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builds a {@link NatsRelay}; every setter validates its argument. */
    public static final class Builder extends BrokerRelay.Builder<NatsDestination, Builder> {
        private final Options options;
        private Duration ackTimeout = DEFAULT_ACK_TIMEOUT;

        private Builder(Options options) {
            super("NATS", "a NATS relay", DEFAULT_RETRY_POLICY);
            this.options = Require.notNull(options, "options");
        }

        /** How long to wait for the stream's acknowledgement before the attempt fails. Default 5 s. */
        public Builder ackTimeout(Duration ackTimeout) {
            Require.notNull(ackTimeout, "ackTimeout");
            if (ackTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("ackTimeout must be at least 1 ms, got " + ackTimeout);
            }
            this.ackTimeout = ackTimeout;
            return this;
        }

        /** @throws IllegalStateException without a destination */
        public NatsRelay build() {
            return new NatsRelay(this);
        }
    }
}
