package dev.postbox.amqp;

import static dev.postbox.testing.Refusals.refused;

import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Test;

/**
 * A null or blank argument to the relay's builder or a destination is an {@link
 * IllegalArgumentException} naming the argument, where the mistake is made, as in the core and HTTP
 * delivery (not a {@link NullPointerException}). No broker is needed: nothing connects.
 */
class AmqpRelayArgumentsTest {

    @Test
    void nullAndBlankArgumentsAreRefusedByName() {
        refused(() -> AmqpRelay.builder(null), "connectionFactory may not be null");
        AmqpRelay.Builder builder = AmqpRelay.builder(new ConnectionFactory());
        refused(() -> builder.destination(null), "destination may not be null");
        refused(() -> builder.confirmTimeout(null), "confirmTimeout may not be null");
        refused(() -> builder.retryPolicy(null), "retryPolicy may not be null");
        refused(() -> builder.queue(null), "queue may not be null or blank");
        refused(() -> builder.queue(" "), "queue may not be null or blank");
        refused(() -> AmqpDestination.of(null, "", "orders"), "destination name may not be null");
        refused(
                () -> AmqpDestination.of("orders", null, "orders"),
                "exchange of destination 'orders' (\"\" is the default exchange) may not be null");
        refused(() -> AmqpDestination.of("orders", "", null), "routing key of destination 'orders' may not be null");
    }
}
