package dev.postbox.http.webhook;

import dev.postbox.Job;
import dev.postbox.http.AttemptResult;
import java.time.Duration;
import java.time.Instant;

/**
 * Webhook delivery events for metrics, alerts and logs. Every method has a no-op default;
 * implementations must be fast and must not throw.
 */
public interface WebhookListener {

    /** A listener that does nothing. */
    WebhookListener NO_OP = new WebhookListener() {};

    /** Why an endpoint was disabled. */
    enum DisableCause {
        /** An operator called {@link EndpointRegistry#disable}. */
        OPERATOR,
        /** The endpoint answered 410 Gone. */
        GONE,
        /** Failures went on for longer than the {@link SustainedFailurePolicy} allows. */
        SUSTAINED_FAILURE
    }

    /** One delivery attempt finished (any outcome). */
    default void attempted(Job job, String endpoint, AttemptResult result) {}

    /** The endpoint was disabled; its deliveries wait until it is enabled. */
    default void endpointDisabled(String endpoint, DisableCause cause, String reason) {}

    /** The endpoint was enabled again; {@code resumed} parked jobs and {@code replayed} dead letters run again. */
    default void endpointEnabled(String endpoint, int resumed, int replayed) {}

    /**
     * A 429 cut the endpoint's cluster-wide rate to {@code factor} of its configured rate; it climbs
     * back from there and is whole again at {@code until} unless another 429 cuts it first.
     */
    default void rateLowered(String endpoint, double factor, Instant until) {}

    /** A delivery waited for rate-limit or in-flight permits and was snoozed (no attempt spent). */
    default void throttled(String endpoint, Duration wait) {}

    /**
     * {@code count} deliveries of the endpoint that were due but not yet claimed were lined up for
     * its permits in one statement (given later run times, no attempt spent).
     */
    default void linedUp(String endpoint, int count) {}

    /** A fan-out job expanded {@code created} delivery jobs for an event. */
    default void fannedOut(String eventType, long eventJobId, int created) {}
}
