package dev.postbox.http;

import dev.postbox.Require;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Parses the {@code Retry-After} response header (RFC 9110 §10.2.3): either delta-seconds ({@code
 * 120}) or an HTTP-date in RFC 1123 form ({@code Wed, 21 Oct 2015 07:28:00 GMT}). The delay is
 * measured from an injected clock and clamped to {@code [min, max]}, so a hostile or confused
 * endpoint can neither make Postbox retry in a tight loop nor park a job for a year.
 *
 * <p>Immutable and thread-safe.
 */
public final class RetryAfter {

    /** Default lower bound of an honoured delay. */
    public static final Duration DEFAULT_MIN = Duration.ofSeconds(1);

    /** Default upper bound of an honoured delay. */
    public static final Duration DEFAULT_MAX = Duration.ofHours(1);

    private static final int MAX_DELTA_DIGITS = 12;

    private final Duration min;
    private final Duration max;
    private final Clock clock;

    private RetryAfter(Duration min, Duration max, Clock clock) {
        this.min = min;
        this.max = max;
        this.clock = clock;
    }

    /** A parser clamping to [{@link #DEFAULT_MIN}, {@link #DEFAULT_MAX}] on the system UTC clock. */
    public static RetryAfter ofDefaults() {
        return of(DEFAULT_MIN, DEFAULT_MAX, Clock.systemUTC());
    }

    /**
     * A parser clamping to {@code [min, max]}, with HTTP-dates measured from {@code clock}.
     *
     * @throws IllegalArgumentException if min is negative or max is smaller than min
     */
    public static RetryAfter of(Duration min, Duration max, Clock clock) {
        Require.notNull(min, "min");
        Require.notNull(max, "max");
        Require.notNull(clock, "clock");
        if (min.isNegative()) {
            throw new IllegalArgumentException("min may not be negative, got " + min);
        }
        if (max.compareTo(min) < 0) {
            throw new IllegalArgumentException("max must be at least min (" + min + "), got " + max);
        }
        return new RetryAfter(min, max, clock);
    }

    /** The lower bound. */
    public Duration min() {
        return min;
    }

    /** The upper bound. */
    public Duration max() {
        return max;
    }

    /**
     * The delay the header asks for, clamped to {@code [min, max]}; empty when the header is absent or
     * unparseable (garbage is ignored, the normal backoff applies). A date in the past gives {@code
     * min}.
     */
    public Optional<Duration> parse(@Nullable String headerValue) {
        if (headerValue == null) {
            return Optional.empty();
        }
        String value = headerValue.strip();
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.of(
                    value.length() > MAX_DELTA_DIGITS ? max : clamp(Duration.ofSeconds(Long.parseLong(value))));
        }
        return parseHttpDate(value).map(at -> clamp(Duration.between(clock.instant(), at)));
    }

    private static Optional<Instant> parseHttpDate(String value) {
        try {
            return Optional.of(ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private Duration clamp(Duration delay) {
        if (delay.compareTo(min) < 0) {
            return min;
        }
        return delay.compareTo(max) > 0 ? max : delay;
    }

    @Override
    public String toString() {
        return "RetryAfter[min=" + min + ", max=" + max + "]";
    }
}
