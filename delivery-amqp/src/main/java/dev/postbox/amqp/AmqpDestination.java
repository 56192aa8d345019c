package dev.postbox.amqp;

import dev.postbox.RelayDestination;
import dev.postbox.Require;

/**
 * Where messages of one destination name go: an exchange and a routing key. Jobs name the
 * destination, never the exchange, so a destination can move without touching the jobs waiting for
 * it.
 *
 * @param name the name jobs use ({@link AmqpRelay#message})
 * @param exchange the exchange to publish to ({@code ""} is the default exchange, which routes by queue name)
 * @param routingKey the routing key
 * @param maxPerSecond the most messages all processes together publish to the destination per
 *     second (a token bucket shared through the database, with a burst of one second's worth); 0 for
 *     no limit. Messages over it wait: their jobs are snoozed, no attempt spent, no worker held
 */
public record AmqpDestination(String name, String exchange, String routingKey, int maxPerSecond)
        implements RelayDestination {

    public AmqpDestination {
        Require.notNull(name, "destination name");
        Require.notNull(exchange, "exchange of destination '" + name + "' (\"\" is the default exchange)");
        Require.notNull(routingKey, "routing key of destination '" + name + "'");
        RelayDestination.checkName(name);
        // AMQP 0-9-1 short strings: at most 255 bytes.
        if (exchange.length() > 255 || routingKey.length() > 255) {
            throw new IllegalArgumentException(
                    "exchange and routing key of destination '" + name + "' must be at most 255 characters");
        }
        RelayDestination.checkMaxPerSecond(name, maxPerSecond);
    }

    /** A destination publishing to {@code exchange} with {@code routingKey}. */
    public static AmqpDestination of(String name, String exchange, String routingKey) {
        return new AmqpDestination(name, exchange, routingKey, 0);
    }

    /** A destination publishing straight to a queue, through the default exchange. */
    public static AmqpDestination queue(String name, String queue) {
        return new AmqpDestination(name, "", queue, 0);
    }

    /**
     * The same destination with at most {@code maxPerSecond} messages per second, from all processes
     * together.
     */
    public AmqpDestination withRateLimit(int maxPerSecond) {
        RelayDestination.checkRateLimit(name, maxPerSecond);
        return new AmqpDestination(name, exchange, routingKey, maxPerSecond);
    }
}
