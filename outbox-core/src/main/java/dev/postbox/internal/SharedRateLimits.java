package dev.postbox.internal;

import dev.postbox.RateLimits;
import dev.postbox.Require;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@link RateLimits} in {@code outbox_rate_bucket}, the table of the webhook endpoints' buckets. Taking
 * permits is one {@code UPDATE ... RETURNING}: it refills the bucket from the database clock, grants
 * what is there, and moves the end of the bucket's line ({@code line_until}) by one slot per refused
 * permit, so every process draws from the same tokens and hands out slots of the same line. The row
 * lock serialises concurrent takers; the clock is read after it is taken. The adaptive factor of the
 * webhook buckets ({@code rate_factor}) is not used: these buckets are never throttled.
 */
public final class SharedRateLimits implements RateLimits {

    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9.-]*:\\S+");

    /** Tokens now: refilled since updated_at, capped at the burst. Reads the row as locked. */
    private static final String AVAILABLE = "least(burst::float8, tokens"
            + " + greatest(0, extract(epoch FROM clock_timestamp() - updated_at)::float8) * rate_per_second)";

    private static final String GRANT = "least(p.wanted, greatest(0, floor(" + AVAILABLE + ")))::int";

    private static final String REFUSED = "(p.wanted - " + GRANT + ")";

    /** The first slot for refused permits: the end of the line, and not before the bucket holds a token again. */
    private static final String LINE_START = "greatest(coalesce(line_until, clock_timestamp()), clock_timestamp()"
            + " + greatest(0, 1 - (" + AVAILABLE + " - " + GRANT + ")) / rate_per_second * interval '1 second')";

    private static final String TAKE = "UPDATE outbox_rate_bucket SET last_granted = " + GRANT + ","
            + " tokens = " + AVAILABLE + " - " + GRANT + ", updated_at = clock_timestamp(),"
            + " line_until = CASE WHEN " + REFUSED + " > 0 THEN " + LINE_START + " + " + REFUSED
            + " / rate_per_second * interval '1 second' ELSE line_until END"
            + " FROM (VALUES (?::int)) AS p(wanted) WHERE endpoint = ?"
            + " RETURNING last_granted, (extract(epoch FROM line_until - clock_timestamp())"
            + " - (p.wanted - last_granted) / rate_per_second) * 1e9, 1e9 / rate_per_second";

    private static final String UPSERT = "INSERT INTO outbox_rate_bucket"
            + " (endpoint, rate_per_second, burst, tokens, updated_at) VALUES (?, ?, ?, ?, clock_timestamp())"
            + " ON CONFLICT (endpoint) DO UPDATE SET rate_per_second = excluded.rate_per_second,"
            + " burst = excluded.burst, tokens = least(outbox_rate_bucket.tokens, excluded.burst)"
            + " WHERE outbox_rate_bucket.rate_per_second <> excluded.rate_per_second"
            + " OR outbox_rate_bucket.burst <> excluded.burst";

    private final DataSource dataSource;

    public SharedRateLimits(DataSource dataSource) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
    }

    @Override
    public Bucket bucket(String key, double perSecond, int burst) {
        Require.notNull(key, "key");
        if (key.length() > MAX_KEY_LENGTH || !KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("rate limit key '" + key + "' is not valid: use a lower-case prefix"
                    + " naming the owner, a colon and a name without spaces, at most " + MAX_KEY_LENGTH
                    + " characters, e.g. 'kafka:orders'");
        }
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException(
                    "perSecond of rate limit '" + key + "' must be positive, was " + perSecond);
        }
        Require.positive(burst, "burst");
        return new SharedBucket(key, perSecond, burst);
    }

    private final class SharedBucket implements Bucket {
        private final String key;
        private final double perSecond;
        private final int burst;
        private volatile boolean configured;

        SharedBucket(String key, double perSecond, int burst) {
            this.key = key;
            this.perSecond = perSecond;
            this.burst = burst;
        }

        @Override
        public String key() {
            return key;
        }

        void configure() throws SQLException {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
                    ps.setString(1, key);
                    ps.setDouble(2, perSecond);
                    ps.setInt(3, burst);
                    ps.setDouble(4, burst);
                    ps.executeUpdate();
                }
            }
        }

        @Override
        public Permits take(int wanted) {
            Require.positive(wanted, "wanted");
            try {
                if (!configured) {
                    configure(); // on first use, not at build time: the schema may not be there yet
                    configured = true;
                }
                Permits permits = tryTake(wanted);
                if (permits == null) {
                    // The row is gone (deleted by hand): put it back, as configured, and take again.
                    configure();
                    permits = tryTake(wanted);
                }
                if (permits == null) {
                    throw new IllegalStateException("the rate limit '" + key + "' has no row in outbox_rate_bucket");
                }
                return permits;
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "Taking permits of the rate limit '" + key + "' failed: " + e.getMessage(), e);
            }
        }

        private @Nullable Permits tryTake(int wanted) throws SQLException {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (PreparedStatement ps = c.prepareStatement(TAKE)) {
                    ps.setInt(1, wanted);
                    ps.setString(2, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            return null;
                        }
                        return new Permits(
                                rs.getInt(1),
                                Duration.ofNanos(Math.max(0, (long) rs.getDouble(2))),
                                Duration.ofNanos(Math.max(1, (long) rs.getDouble(3))));
                    }
                }
            }
        }
    }
}
