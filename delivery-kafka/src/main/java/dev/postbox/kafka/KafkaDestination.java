package dev.postbox.kafka;

import dev.postbox.RelayDestination;
import dev.postbox.Require;
import java.util.regex.Pattern;

/**
 * Where messages of one destination name go: a topic, and optionally a rate limit. Jobs name the
 * destination, never the topic, so a destination can move to another topic without touching the
 * jobs waiting for it.
 *
 * @param name the name jobs use ({@link KafkaRelay#message})
 * @param topic the topic to send to
 * @param maxPerSecond the most records all processes together send to the destination per second
 *     (a token bucket shared through the database, with a burst of one second's worth); 0 for no
 *     limit. Records over the limit wait (their jobs are snoozed, no attempt spent, no worker held).
 */
public record KafkaDestination(String name, String topic, int maxPerSecond) implements RelayDestination {

    // Kafka's own rule: 1-249 of these characters, and not "." or "..".
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

    public KafkaDestination {
        Require.notNull(name, "destination name");
        Require.notNull(topic, "topic of destination '" + name + "'");
        RelayDestination.checkName(name);
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("topic '" + topic + "' of destination '" + name + "' is not a valid"
                    + " Kafka topic name: use 1-249 letters, digits, '.', '_' or '-'");
        }
        RelayDestination.checkMaxPerSecond(name, maxPerSecond);
    }

    /** A destination sending to {@code topic}, without a rate limit. */
    public static KafkaDestination of(String name, String topic) {
        return new KafkaDestination(name, topic, 0);
    }

    /**
     * The same destination with at most {@code maxPerSecond} records per second, from all processes
     * together.
     */
    public KafkaDestination withRateLimit(int maxPerSecond) {
        RelayDestination.checkRateLimit(name, maxPerSecond);
        return new KafkaDestination(name, topic, maxPerSecond);
    }
}
