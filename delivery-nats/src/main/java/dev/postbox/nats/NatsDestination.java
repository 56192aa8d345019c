package dev.postbox.nats;

import dev.postbox.RelayDestination;
import dev.postbox.Require;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where messages of one destination name go: a subject, captured by a JetStream stream. Jobs name
 * the destination, never the subject.
 *
 * @param name the name jobs use ({@link NatsRelay#message})
 * @param subject the subject to publish to (no wildcards)
 * @param expectedStream the stream that must capture the subject, or null to accept any; with it, a
 *     subject captured by another stream (a configuration mistake) fails the attempt instead of
 *     storing the message in the wrong place
 * @param maxPerSecond the most messages all processes together publish to the destination per
 *     second (a token bucket shared through the database, with a burst of one second's worth); 0 for
 *     no limit. Messages over it wait: their jobs are snoozed, no attempt spent, no worker held
 */
public record NatsDestination(
        String name, String subject, @Nullable String expectedStream, int maxPerSecond) implements RelayDestination {

    private static final Pattern SUBJECT = Pattern.compile("[^\\s*>.]+(\\.[^\\s*>.]+)*");

    public NatsDestination {
        Require.notNull(name, "destination name");
        Require.notNull(subject, "subject of destination '" + name + "'");
        RelayDestination.checkName(name);
        if (!SUBJECT.matcher(subject).matches()) {
            throw new IllegalArgumentException("subject '" + subject + "' of destination '" + name + "' is not valid:"
                    + " dot-separated tokens without spaces and without the wildcards '*' and '>'");
        }
        RelayDestination.checkMaxPerSecond(name, maxPerSecond);
    }

    /** A destination publishing to {@code subject}, stored by whichever stream captures it. */
    public static NatsDestination of(String name, String subject) {
        return new NatsDestination(name, subject, null, 0);
    }

    /** A destination publishing to {@code subject}, which must be captured by {@code stream}. */
    public static NatsDestination of(String name, String subject, String stream) {
        return new NatsDestination(name, subject, Require.notNull(stream, "stream"), 0);
    }

    /**
     * The same destination with at most {@code maxPerSecond} messages per second, from all processes
     * together.
     */
    public NatsDestination withRateLimit(int maxPerSecond) {
        RelayDestination.checkRateLimit(name, maxPerSecond);
        return new NatsDestination(name, subject, expectedStream, maxPerSecond);
    }
}
