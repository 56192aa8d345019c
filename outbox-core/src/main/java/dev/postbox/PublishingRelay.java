package dev.postbox;

import java.util.List;

/**
 * A broker relay that publishes one job at a time through a {@link RelayPublishHandler} (AMQP,
 * NATS): its handler's registration with the relay's retry policy, and the install of the shared
 * rate-limit buckets, are the same for every such relay. A relay that sends in batches (Kafka)
 * extends {@link BrokerRelay} directly.
 *
 * @param <D> the broker's destination
 */
public abstract class PublishingRelay<D extends RelayDestination> extends BrokerRelay<D> {

    private final String kind;

    /**
     * @param kind the relay's job kind
     * @param builder the relay's builder
     * @throws IllegalStateException without a destination
     */
    protected PublishingRelay(String kind, Builder<D, ?> builder) {
        super(kind, builder);
        this.kind = kind;
    }

    /** The relay's handler: the broker's publishing on the common destination and rate-limit steps. */
    protected abstract RelayPublishHandler<D> publishHandler();

    /**
     * The registration of the relay's handler, with its retry policy. Register the relay with {@link
     * Postbox.Builder#module} rather than this alone: rate limits and {@link #send} need the relay
     * installed.
     */
    public final HandlerRegistration registration() {
        return HandlerRegistration.of(kind, publishHandler()).retryPolicy(retryPolicy());
    }

    /** The relay's handler, for {@link Postbox.Builder#module}. */
    @Override
    public final List<HandlerRegistration> handlers() {
        return List.of(registration());
    }

    @Override
    protected final void installRateLimits(RateLimits rateLimits) {
        publishHandler().install(rateLimits);
    }
}
