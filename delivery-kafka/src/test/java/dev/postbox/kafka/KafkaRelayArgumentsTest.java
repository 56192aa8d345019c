package dev.postbox.kafka;

import static dev.postbox.testing.Refusals.refused;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A null or blank argument to the relay's builder or a destination is an {@link
 * IllegalArgumentException} naming the argument, where the mistake is made, as in the core and HTTP
 * delivery (not a {@link NullPointerException}). No broker is needed: nothing is built.
 */
class KafkaRelayArgumentsTest {

    @Test
    void nullAndBlankArgumentsAreRefusedByName() {
        refused(() -> KafkaRelay.builder(null), "producerConfig may not be null");
        KafkaRelay.Builder builder = KafkaRelay.builder(Map.of("bootstrap.servers", "127.0.0.1:9"));
        refused(() -> builder.destination(null), "destination may not be null");
        refused(() -> builder.sendTimeout(null), "sendTimeout may not be null");
        refused(() -> builder.retryPolicy(null), "retryPolicy may not be null");
        refused(() -> builder.queue(null), "queue may not be null or blank");
        refused(() -> builder.queue(" "), "queue may not be null or blank");
        refused(() -> builder.listener(null), "listener may not be null");
        refused(() -> KafkaDestination.of(null, "orders"), "destination name may not be null");
        refused(() -> KafkaDestination.of("orders", null), "topic of destination 'orders' may not be null");
    }
}
