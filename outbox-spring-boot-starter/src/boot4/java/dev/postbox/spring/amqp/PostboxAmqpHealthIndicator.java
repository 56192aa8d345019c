package dev.postbox.spring.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The RabbitMQ relay's health: {@code DOWN} when the broker cannot be reached; {@code
 * OUT_OF_SERVICE} when a destination's exchange does not exist (its messages are retried until it
 * does); else {@code UP}. Each check opens and closes a connection of its own; details name the
 * missing exchanges, never credentials.
 */
public final class PostboxAmqpHealthIndicator implements HealthIndicator {

    private final ConnectionFactory factory;
    private final List<String> exchanges;

    public PostboxAmqpHealthIndicator(ConnectionFactory factory, List<String> exchanges) {
        this.factory = factory;
        this.exchanges = List.copyOf(new TreeSet<>(exchanges));
    }

    @Override
    public Health health() {
        try (Connection connection = factory.newConnection("postbox-health")) {
            List<String> missing = new ArrayList<>();
            for (String exchange : exchanges) {
                if (exchange.isEmpty()) {
                    continue; // the default exchange always exists
                }
                Channel channel = connection.createChannel();
                try {
                    channel.exchangeDeclarePassive(exchange);
                    channel.close();
                } catch (IOException e) {
                    missing.add(exchange); // the broker closed the channel: 404 NOT_FOUND
                }
            }
            Health.Builder health = missing.isEmpty() ? Health.up() : Health.outOfService();
            health.withDetail("exchanges", exchanges);
            if (!missing.isEmpty()) {
                health.withDetail("missingExchanges", missing)
                        .withDetail("reason", "messages for these exchanges are retried until they exist");
            }
            return health.build();
        } catch (Exception e) {
            return Health.down()
                    .withDetail("reason", "the RabbitMQ broker could not be reached")
                    .withDetail("error", e.getClass().getSimpleName())
                    .build();
        }
    }
}
