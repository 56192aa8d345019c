package dev.postbox.spring.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The starter's checks of property values, in the setters of its {@code @ConfigurationProperties}
 * classes: each throws {@link IllegalArgumentException} with the property's full name, what it
 * must be and the value it was (Boot reports it as a binding failure of that property).
 */
public final class PropertyChecks {

    private PropertyChecks() {}

    public static Duration positive(@Nullable Duration value, String property) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, was " + value);
        }
        return value;
    }

    public static Duration notNegative(@Nullable Duration value, String property) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(property + " must be zero or positive, was " + value);
        }
        return value;
    }

    public static long notNegative(long value, String property) {
        if (value < 0) {
            throw new IllegalArgumentException(property + " must be zero or positive, was " + value);
        }
        return value;
    }

    public static int between(int value, int min, int max, String property) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(property + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /** The trimmed text. */
    public static String notBlank(@Nullable String value, String property) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(property + " may not be blank");
        }
        return value.trim();
    }
}
