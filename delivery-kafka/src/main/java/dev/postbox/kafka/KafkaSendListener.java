package dev.postbox.kafka;

/**
 * Told about each record the relay sends, for metrics; called on the producer's thread, so it must
 * be quick and must not throw.
 */
public interface KafkaSendListener {

    /** Listens to nothing. */
    KafkaSendListener NONE = new KafkaSendListener() {};

    /** The broker acknowledged a record {@code nanos} after it was sent. */
    default void acknowledged(KafkaDestination destination, long nanos) {}

    /** A record failed: for good ({@code permanent}, its job is dead-lettered) or to be retried. */
    default void failed(KafkaDestination destination, boolean permanent) {}

    /** A record waits for the destination's rate limit (its job is snoozed). */
    default void rateLimited(KafkaDestination destination) {}
}
