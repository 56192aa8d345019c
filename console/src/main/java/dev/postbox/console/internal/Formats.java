package dev.postbox.console.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** How the pages write numbers, times and durations: one place, so every page reads alike. */
public final class Formats {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter PRECISE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MINUTE =
            DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter INPUT =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final Instant now;

    public Formats(Instant now) {
        this.now = now;
    }

    /** UTC, to the second: "2025-03-01 14:02:33". */
    public String time(@Nullable Instant t) {
        return t == null ? "—" : TIME.format(t);
    }

    /** UTC, to the millisecond (attempt timelines). */
    public String precise(@Nullable Instant t) {
        return t == null ? "—" : PRECISE.format(t);
    }

    public String minute(Instant t) {
        return MINUTE.format(t);
    }

    /** The value of a datetime-local input (UTC). */
    public String input(@Nullable Instant t) {
        return t == null ? "" : INPUT.format(t);
    }

    /** "3m 20s ago" or "in 12s". */
    public String relative(@Nullable Instant t) {
        if (t == null) {
            return "—";
        }
        Duration d = Duration.between(t, now);
        return d.isNegative() ? "in " + age(d.negated()) : age(d) + " ago";
    }

    /** How long ago: "3m 20s". */
    public String since(@Nullable Instant t) {
        return t == null ? "—" : age(Duration.between(t, now).abs());
    }

    /** "0s", "850ms", "42s", "3m 20s", "2h 05m", "3d 4h". */
    public String age(@Nullable Duration d) {
        if (d == null) {
            return "—";
        }
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms == 0 ? "0s" : ms + "ms";
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return (s / 60) + "m " + (s % 60) + "s";
        }
        if (s < 86_400) {
            return (s / 3600) + "h " + String.format(Locale.ROOT, "%02dm", (s % 3600) / 60);
        }
        return (s / 86_400) + "d " + ((s % 86_400) / 3600) + "h";
    }

    /** 1234567 as "1,234,567". */
    public String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** 0.9876 as "98.8%". */
    public String percent(@Nullable Double share) {
        return share == null ? "—" : String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    /** Milliseconds, rounded: "12 ms", "1.2 s". */
    public String millis(@Nullable Number ms) {
        if (ms == null) {
            return "—";
        }
        double v = ms.doubleValue();
        return v >= 1000 ? String.format(Locale.ROOT, "%.1f s", v / 1000) : String.format(Locale.ROOT, "%.0f ms", v);
    }

    /** A rate per second: "10/s", "2.5/s". */
    public String rate(@Nullable Double perSecond) {
        if (perSecond == null) {
            return "unlimited";
        }
        return perSecond == Math.rint(perSecond)
                ? String.format(Locale.ROOT, "%.0f/s", perSecond)
                : String.format(Locale.ROOT, "%.2f/s", perSecond);
    }

    /** "high", "normal", "low" for lanes 1, 0, -1. */
    public String lane(int lane) {
        return lane > 0 ? "high" : lane < 0 ? "low" : "normal";
    }
}
