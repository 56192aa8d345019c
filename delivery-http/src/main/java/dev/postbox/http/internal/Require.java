package dev.postbox.http.internal;

import org.jspecify.annotations.Nullable;

/**
 * Argument checks of HTTP delivery's constructors and builder setters: a bad argument is an {@link
 * IllegalArgumentException} whose message names the field, as in the core (whose {@code Require} is
 * internal to it).
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

    /** An element of a collection, or an {@link IllegalArgumentException} "{@code <name> may not contain null}". */
    public static <T> T element(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " may not contain null");
        }
        return value;
    }
}
