package dev.postbox.nats;

import dev.postbox.EnqueueResult;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.PostboxModule;
import dev.postbox.RelayOutbox;
import dev.postbox.RetryPolicy;
import dev.postbox.nats.internal.JetStreamPublishHandler;
import dev.postbox.nats.internal.Require;
import io.nats.client.Options;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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
public final class NatsRelay implements PostboxModule, AutoCloseable {

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

    private final Map<String, NatsDestination> destinations;
    private final JetStreamPublishHandler handler;
    private final RetryPolicy retryPolicy;
    private final String queue;
    private final RelayOutbox emitting;

    private NatsRelay(Builder b) {
        this.destinations = Map.copyOf(b.destinations);
        this.handler = new JetStreamPublishHandler(destinations, b.options, b.ackTimeout);
        this.retryPolicy = b.retryPolicy;
        this.queue = b.queue;
        this.emitting = new RelayOutbox("NATS", KIND, b.queue, destinations.keySet());
    }

    /** A builder on the NATS connection options (servers, credentials, TLS). */
    public static Builder builder(Options options) {
        return new Builder(options);
    }

    /**
     * A job that publishes {@code payload} (as JSON) to a destination; enqueue it in the business
     * transaction.
     *
     * @param key the idempotency key: also the {@code Nats-Msg-Id} every attempt carries; null for
     *     one generated per job
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
     * @param key the idempotency key and {@code Nats-Msg-Id}; null for one generated per job
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
    public Map<String, NatsDestination> destinations() {
        return destinations;
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
    public static final class Builder {
        private final Options options;
        private final Map<String, NatsDestination> destinations = new LinkedHashMap<>();
        private Duration ackTimeout = DEFAULT_ACK_TIMEOUT;
        private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
        private String queue = JobRequest.DEFAULT_QUEUE;

        private Builder(Options options) {
            this.options = Require.notNull(options, "options");
        }

        /** Adds a destination; names are unique. */
        public Builder destination(NatsDestination destination) {
            Require.notNull(destination, "destination");
            if (destinations.putIfAbsent(destination.name(), destination) != null) {
                throw new IllegalArgumentException("NATS destination '" + destination.name() + "' is configured twice");
            }
            return this;
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

        public NatsRelay build() {
            if (destinations.isEmpty()) {
                throw new IllegalStateException("a NATS relay needs at least one destination");
            }
            return new NatsRelay(this);
        }
    }
}
