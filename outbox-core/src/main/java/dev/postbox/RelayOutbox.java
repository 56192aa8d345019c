package dev.postbox;

import java.sql.Connection;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The emitting side every broker relay shares: it checks that a destination is configured, builds
 * the destination's job, and writes it through the engine's {@link Outbox} once the relay is
 * installed in an engine ({@link PostboxModule#install}).
 */
public final class RelayOutbox {

    private final String broker;
    private final String kind;
    private final String queue;
    private final Set<String> destinations;
    private volatile @Nullable Outbox outbox;

    /**
     * @param broker the broker's name in error messages ("Kafka", "NATS", …)
     * @param kind the relay's job kind
     * @param queue the queue its jobs are written to
     * @param destinations the names of the configured destinations
     */
    public RelayOutbox(String broker, String kind, String queue, Set<String> destinations) {
        this.broker = Require.notBlank(broker, "broker");
        this.kind = Require.notBlank(kind, "kind");
        this.queue = Require.notBlank(queue, "queue");
        this.destinations = Set.copyOf(Require.notNull(destinations, "destinations"));
    }

    /**
     * A job that sends {@code payload} (as JSON) to a destination.
     *
     * @param key the idempotency key (the key every attempt carries); null for one generated per job
     * @throws IllegalArgumentException if the destination is not configured
     */
    public JobRequest.Builder messageBuilder(String destination, Object payload, @Nullable String key) {
        Require.notNull(destination, "destination");
        Require.notNull(payload, "payload");
        if (!destinations.contains(destination)) {
            throw new IllegalArgumentException(broker + " destination '" + destination
                    + "' is not configured; configured: " + new TreeSet<>(destinations));
        }
        return JobRequest.builder(kind)
                .queue(queue)
                .endpoint(destination)
                .payload(payload)
                .idempotencyKey(key);
    }

    /** Writes a job in the current transaction of the engine's DataSource. */
    public EnqueueResult send(JobRequest request) {
        return installed().enqueue(request);
    }

    /** Writes a job in the transaction of {@code connection}. */
    public EnqueueResult send(Connection connection, JobRequest request) {
        return installed().enqueue(connection, request);
    }

    /** Binds to the engine's outbox; called from the relay's {@link PostboxModule#install}. */
    public void install(Outbox outbox) {
        this.outbox = Require.notNull(outbox, "outbox");
    }

    private Outbox installed() {
        Outbox installed = outbox;
        if (installed == null) {
            throw new IllegalStateException("the " + broker + " relay is not installed in an engine yet: add it with"
                    + " Postbox.Builder.module(relay) and build the engine before sending");
        }
        return installed;
    }
}
