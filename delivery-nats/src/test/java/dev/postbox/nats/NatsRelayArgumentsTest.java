package dev.postbox.nats;

import static dev.postbox.testing.Refusals.refused;

import io.nats.client.Options;
import org.junit.jupiter.api.Test;

/**
 * A null or blank argument to the relay's builder or a destination is an {@link
 * IllegalArgumentException} naming the argument, where the mistake is made, as in the core and HTTP
 * delivery (not a {@link NullPointerException}). No server is needed: nothing connects.
 */
class NatsRelayArgumentsTest {

    @Test
    void nullAndBlankArgumentsAreRefusedByName() {
        refused(() -> NatsRelay.builder(null), "options may not be null");
        NatsRelay.Builder builder = NatsRelay.builder(Options.builder().build());
        refused(() -> builder.destination(null), "destination may not be null");
        refused(() -> builder.ackTimeout(null), "ackTimeout may not be null");
        refused(() -> builder.retryPolicy(null), "retryPolicy may not be null");
        refused(() -> builder.queue(null), "queue may not be null or blank");
        refused(() -> builder.queue(" "), "queue may not be null or blank");
        refused(() -> NatsDestination.of(null, "orders"), "destination name may not be null");
        refused(() -> NatsDestination.of("orders", null), "subject of destination 'orders' may not be null");
        refused(() -> NatsDestination.of("orders", "orders", null), "stream may not be null");
    }
}
