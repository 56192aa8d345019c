package dev.postbox.kafka;

import dev.postbox.kafka.internal.Require;
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
public record KafkaDestination(String name, String topic, int maxPerSecond) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    // Kafka's own rule: 1-249 of these characters, and not "." or "..".
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

    public KafkaDestination {
        Require.notNull(name, "destination name");
        Require.notNull(topic, "topic of destination '" + name + "'");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("destination name '" + name + "' is not valid: use 1-100 letters,"
                    + " digits, '.', '_' or '-', starting with a letter or digit");
        }
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("topic '" + topic + "' of destination '" + name + "' is not a valid"
                    + " Kafka topic name: use 1-249 letters, digits, '.', '_' or '-'");
        }
        if (maxPerSecond < 0) {
            throw new IllegalArgumentException("maxPerSecond of destination '" + name
                    + "' may not be negative (0 means no limit), got " + maxPerSecond);
        }
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
        if (maxPerSecond < 1) {
            throw new IllegalArgumentException(
                    "rate limit of destination '" + name + "' must be at least 1 per second, got " + maxPerSecond);
        }
        return new KafkaDestination(name, topic, maxPerSecond);
    }
}
