package dev.postbox;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Argument checks whose messages name the offending argument: a bad argument is an {@link
 * IllegalArgumentException} such as {@code "maxAttempts must be positive, was 0"}, thrown where the
 * mistake is made (in a constructor or builder setter), never a {@link NullPointerException}. The one
 * idiom of Postbox's own modules (HTTP delivery, the broker relays) and a door for handler and module
 * authors who want the same messages; each check returns its argument.
 *
 * <pre>{@code
 * this.endpoint = Require.notBlank(endpoint, "endpoint");
 * this.batchSize = Require.positive(batchSize, "batchSize");
 * }</pre>
 */
public final class Require {

    private Require() {}

    /** The value, or an {@link IllegalArgumentException} "{@code <name> may not be null}". */
    public static <T> T notNull(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " may not be null");
        }
        return value;
    }

    /** The value, or an {@link IllegalArgumentException} "{@code <name> may not be null or blank}". */
    public static String notBlank(@Nullable String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " may not be null or blank");
        }
        return value;
    }

    /**
     * An element of a collection, or an {@link IllegalArgumentException} "{@code <name> may not
     * contain null}" ({@code name} is the collection's).
     */
    public static <T> T element(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " may not contain null");
        }
        return value;
    }

    /** The value, or an {@link IllegalArgumentException} "{@code <name> must be positive, was <value>}". */
    public static int positive(int value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    /** The value, or an {@link IllegalArgumentException} "{@code <name> may not be negative, was <value>}". */
    public static int notNegative(int value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " may not be negative, was " + value);
        }
        return value;
    }

    /**
     * The duration, or an {@link IllegalArgumentException} when it is null, zero or negative
     * ("{@code <name> must be a positive duration, was <value>}").
     */
    public static Duration positive(@Nullable Duration value, String name) {
        Duration duration = notNull(value, name);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + duration);
        }
        return duration;
    }

    /**
     * The duration, or an {@link IllegalArgumentException} when it is null or negative ("{@code <name>
     * may not be negative, was <value>}").
     */
    public static Duration notNegative(@Nullable Duration value, String name) {
        Duration duration = notNull(value, name);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(name + " may not be negative, was " + duration);
        }
        return duration;
    }
}
