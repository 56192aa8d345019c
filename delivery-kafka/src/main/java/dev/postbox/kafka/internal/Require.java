package dev.postbox.kafka.internal;

import org.jspecify.annotations.Nullable;

/**
 * Argument checks of the Kafka relay's builder and destinations: a bad argument is an {@link
 * IllegalArgumentException} whose message names the field, as in the core and HTTP delivery (the
 * core's {@code Require} is internal to it).
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
}
