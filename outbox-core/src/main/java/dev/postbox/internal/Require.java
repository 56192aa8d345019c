package dev.postbox.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Argument checks whose messages name the offending field. */
public final class Require {

    private Require() {}

    public static <T> T notNull(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " may not be null");
        }
        return value;
    }

    public static String notBlank(@Nullable String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " may not be null or blank");
        }
        return value;
    }

    public static int positive(int value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    public static int notNegative(int value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " may not be negative, was " + value);
        }
        return value;
    }

    public static Duration positive(@Nullable Duration value, String name) {
        Duration duration = notNull(value, name);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + duration);
        }
        return duration;
    }

    public static Duration notNegative(@Nullable Duration value, String name) {
        Duration duration = notNull(value, name);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(name + " may not be negative, was " + duration);
        }
        return duration;
    }
}
