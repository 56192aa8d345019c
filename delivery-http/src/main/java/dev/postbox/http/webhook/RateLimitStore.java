package dev.postbox.http.webhook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The cluster-wide token buckets in {@code outbox_rate_bucket}. A lease is one {@code UPDATE ...
 * RETURNING} statement that refills the bucket from the database clock, takes up to the requested
 * permits and reports what is left, so every process on every host draws from the same bucket and
 * no host clock matters.
 */
final class RateLimitStore {

    /** The bucket key of the global limit shared by all endpoints (never a valid endpoint name). */
    static final String GLOBAL = "*";

    /** Effective rate: the configured rate, times the adaptive factor while throttled. */
    private static final String RATE =
            "rate_per_second * CASE WHEN throttled_until > clock_timestamp() THEN rate_factor ELSE 1 END";

    /** Tokens now: refilled from the database clock since updated_at, capped at the burst. */
    private static final String AVAILABLE = "least(burst::float8, tokens"
            + " + greatest(0, extract(epoch FROM clock_timestamp() - updated_at)::float8) * " + RATE + ")";

    private static final String GRANT = "least(?::int, greatest(0, floor(" + AVAILABLE + ")))::int";

    /**
     * One statement: every expression reads the row as locked by this UPDATE (the latest version,
     * after any concurrent lease committed), and the clock is read after the lock is taken.
     */
    private static final String LEASE = "UPDATE outbox_rate_bucket SET last_granted = " + GRANT + ","
            + " tokens = " + AVAILABLE + " - " + GRANT + ", updated_at = clock_timestamp()"
            + " WHERE endpoint = ? RETURNING last_granted, tokens, " + RATE;

    private static final String THROTTLE = "UPDATE outbox_rate_bucket SET"
            + " rate_factor = CASE WHEN throttled_until > clock_timestamp()"
            + "     AND throttled_at > clock_timestamp() - interval '1 second' THEN rate_factor"
            + "   WHEN throttled_until > clock_timestamp() THEN greatest(?, rate_factor * 0.5)"
            + "   ELSE greatest(?, 0.5) END,"
            + " throttled_at = CASE WHEN throttled_until > clock_timestamp()"
            + "     AND throttled_at > clock_timestamp() - interval '1 second' THEN throttled_at"
            + "   ELSE clock_timestamp() END,"
            + " throttled_until = clock_timestamp() + ?::bigint * interval '1 millisecond',"
            + " tokens = least(" + AVAILABLE + ", 0, 1 - ?::float8 * rate_per_second * CASE"
            + "   WHEN throttled_until > clock_timestamp() AND throttled_at > clock_timestamp() - interval '1 second'"
            + "     THEN rate_factor WHEN throttled_until > clock_timestamp() THEN greatest(?, rate_factor * 0.5)"
            + "   ELSE greatest(?, 0.5) END),"
            + " updated_at = clock_timestamp()"
            + " WHERE endpoint = ? RETURNING rate_factor, throttled_until,"
            + " updated_at - throttled_at < interval '1 millisecond'";

    private final DataSource dataSource;

    RateLimitStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * What a lease got.
     *
     * @param granted permits granted (0 to the requested number)
     * @param remaining tokens left in the bucket (negative while a Retry-After is honoured)
     * @param rate the effective rate (configured rate times the adaptive factor)
     */
    record Lease(int granted, double remaining, double rate) {
        /** Time until the bucket holds one whole token again. */
        Duration untilNextToken() {
            if (remaining >= 1) {
                return Duration.ZERO;
            }
            double seconds = (1 - remaining) / rate;
            return Duration.ofNanos(
                    (long) Math.min(seconds * 1e9, Duration.ofDays(1).toNanos()));
        }
    }

    /** Takes up to {@code requested} permits; null when the bucket does not exist (no limit). */
    @Nullable
    Lease lease(String key, int requested) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(LEASE)) {
                ps.setInt(1, requested);
                ps.setInt(2, requested);
                ps.setString(3, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    return new Lease(rs.getInt(1), rs.getDouble(2), rs.getDouble(3));
                }
            }
        }
    }

    /**
     * How much later than its grant a request may reach the receiver compared with its neighbours
     * (thread scheduling, connection reuse, GC), allowed for in the bucket's capacity.
     */
    static final Duration SEND_JITTER_ALLOWANCE = Duration.ofMillis(50);

    /**
     * The bucket's capacity for a configured burst: the burst less the permits the endpoint's rate
     * earns during {@link #SEND_JITTER_ALLOWANCE} (at least 1). The bucket bounds grants to {@code
     * rate + capacity} per second; requests are sent a variable moment after their grant, and a
     * request delayed past a window boundary lands in the next window together with that window's
     * grants. Holding this headroom back keeps what the receiver sees within {@code rate + burst}
     * in any second, as long as send jitter stays within the allowance.
     */
    static int capacity(double rate, int burst) {
        long headroom = (long) Math.ceil(rate * SEND_JITTER_ALLOWANCE.toNanos() / 1e9);
        return (int) Math.max(1, burst - headroom);
    }

    /**
     * Creates or reconfigures a bucket of the endpoint's rate and {@linkplain #capacity capacity};
     * a new bucket starts full, a changed one keeps at most its capacity in tokens.
     */
    static void upsert(Connection c, String key, double rate, int configuredBurst) throws SQLException {
        int burst = capacity(rate, configuredBurst);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_rate_bucket"
                + " (endpoint, rate_per_second, burst, tokens, updated_at) VALUES (?, ?, ?, ?, clock_timestamp())"
                + " ON CONFLICT (endpoint) DO UPDATE SET rate_per_second = excluded.rate_per_second,"
                + " burst = excluded.burst, tokens = least(outbox_rate_bucket.tokens, excluded.burst)"
                + " WHERE outbox_rate_bucket.rate_per_second <> excluded.rate_per_second"
                + " OR outbox_rate_bucket.burst <> excluded.burst")) {
            ps.setString(1, key);
            ps.setDouble(2, rate);
            ps.setInt(3, burst);
            ps.setDouble(4, burst);
            ps.executeUpdate();
        }
    }

    static void delete(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_rate_bucket WHERE endpoint = ?")) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
    }

    void configure(String key, double rate, int burst) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            upsert(c, key, rate, burst);
        }
    }

    /** The outcome of a 429: the new factor and until when it applies; {@code changed} is false within a second of the last cut. */
    record Throttle(double factor, Instant until, boolean changed) {}

    /**
     * Lowers the bucket's effective rate after a 429: halves the factor (not below {@code minFactor}),
     * at most once a second, for {@code lowerFor}; empties the bucket and, with a Retry-After, pushes
     * the next token that far into the future for every process.
     */
    @Nullable
    Throttle throttle(String key, @Nullable Duration retryAfter, Duration lowerFor, double minFactor)
            throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(THROTTLE)) {
                ps.setDouble(1, minFactor);
                ps.setDouble(2, minFactor);
                ps.setLong(3, lowerFor.toMillis());
                ps.setDouble(4, retryAfter == null ? 0 : retryAfter.toMillis() / 1000.0);
                ps.setDouble(5, minFactor);
                ps.setDouble(6, minFactor);
                ps.setString(7, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    return new Throttle(rs.getDouble(1), rs.getTimestamp(2).toInstant(), !rs.getBoolean(3));
                }
            }
        }
    }
}
