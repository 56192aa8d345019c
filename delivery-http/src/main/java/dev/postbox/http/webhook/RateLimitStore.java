package dev.postbox.http.webhook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The cluster-wide token buckets in {@code outbox_rate_bucket}. A lease is one {@code UPDATE ...
 * RETURNING} statement that refills the bucket from the database clock, takes up to the requested
 * permits and reports what is left, so every process on every host draws from the same bucket and
 * no host clock matters. Each bucket also keeps the end of its line ({@code line_until}): the slots
 * that deliveries without a permit are snoozed to, given out by every process from the same row.
 *
 * <p>The adaptive rate after 429 answers (AIMD) lives in the same row, so it is cluster-wide too:
 * {@code rate_factor} is the factor set by the last cut at {@code throttled_at}; from there it climbs
 * back linearly by {@code recoveryPerSecond} until it reaches 1 at {@code throttled_until}. A 429 to a
 * request sent after the last cut halves the factor as it is at that moment (not below the floor);
 * 429s to requests sent before it answer the window the cut already reacted to and change nothing,
 * so a burst of 429s counts once. A cut that leaves the factor at its floor (the endpoint keeps
 * refusing at the lowest rate) also honours the 429's {@code Retry-After} for every process: the
 * bucket pauses that long, and the recovery starts after the pause.
 */
final class RateLimitStore {

    /** The bucket key of the global limit shared by all endpoints (never a valid endpoint name). */
    static final String GLOBAL = "*";

    /** What a 429 multiplies the factor by. */
    static final double DECREASE = 0.7;

    /**
     * The factor now: 1 outside a recovery, else the factor of the last cut plus what it has
     * recovered since ({@code p.recovery} per second). Reads the row as locked by the statement.
     */
    private static final String FACTOR = "CASE WHEN throttled_until > clock_timestamp() THEN least(1.0,"
            + " rate_factor + p.recovery * greatest(0, extract(epoch FROM clock_timestamp() - throttled_at)::float8))"
            + " ELSE 1.0 END";

    /** Effective rate: the configured rate times the adaptive factor. */
    private static final String RATE = "(rate_per_second * " + FACTOR + ")";

    /** Tokens now: refilled from the database clock since updated_at, capped at the burst. */
    private static final String AVAILABLE = "least(burst::float8, tokens"
            + " + greatest(0, extract(epoch FROM clock_timestamp() - updated_at)::float8) * " + RATE + ")";

    private static final String GRANT = "least(p.requested, greatest(0, floor(" + AVAILABLE + ")))::int";

    /**
     * One statement: every expression reads the row as locked by this UPDATE (the latest version,
     * after any concurrent lease committed), and the clock is read after the lock is taken. The
     * parameters come in through a one-row VALUES list, which reads no table.
     */
    private static final String LEASE = "UPDATE outbox_rate_bucket SET last_granted = " + GRANT + ","
            + " tokens = " + AVAILABLE + " - " + GRANT + ", updated_at = clock_timestamp()"
            + " FROM (VALUES (?::int, ?::float8)) AS p(requested, recovery)"
            + " WHERE endpoint = ? RETURNING last_granted, tokens, " + RATE + ","
            + " extract(epoch FROM updated_at - statement_timestamp()) * 1e9";

    /** The factor after a cut: half the factor now, not below the floor. */
    private static final String CUT = "greatest(p.floor, " + FACTOR + " * " + DECREASE + ")";

    /** Whether a cut pauses the bucket: it leaves the factor at its floor and the 429 gave a Retry-After. */
    private static final String PAUSE = "(" + CUT + " <= p.floor + 1e-9 AND p.retry_after > 0)";

    /** When the recovery of a cut starts: now, or at the end of its pause. */
    private static final String RECOVERY_START =
            "clock_timestamp() + CASE WHEN " + PAUSE + " THEN p.retry_after ELSE 0 END * interval '1 second'";

    /**
     * A cut, when the 429's request was sent after the last one ({@code p.sent_ms_ago} before now).
     * The bucket is emptied (the burst stops). A cut that leaves the factor at its floor pauses the
     * bucket for the Retry-After, for every process: the next token is that far away, and the
     * recovery starts after the pause. {@code throttled_until} is when the factor is back at 1 if no
     * other 429 comes. The WHERE clause makes a 429 that starts no new cut change nothing (and
     * return no row).
     */
    private static final String THROTTLE = "UPDATE outbox_rate_bucket SET"
            + " tokens = CASE WHEN " + PAUSE + " THEN least(" + AVAILABLE + ", 0,"
            + "   1 - p.retry_after * rate_per_second * " + CUT + ") ELSE least(" + AVAILABLE + ", 0) END,"
            + " rate_factor = " + CUT + ","
            + " throttled_at = " + RECOVERY_START + ","
            + " throttled_until = " + RECOVERY_START + " + (1 - " + CUT + ") / p.recovery * interval '1 second',"
            + " updated_at = clock_timestamp()"
            + " FROM (VALUES (?::float8, ?::float8, ?::float8, ?::bigint)) AS p(floor, recovery, retry_after,"
            + "   sent_ms_ago)"
            + " WHERE endpoint = ? AND (throttled_until IS NULL OR throttled_until <= clock_timestamp()"
            + "   OR throttled_at < clock_timestamp() - p.sent_ms_ago * interval '1 millisecond')"
            + " RETURNING rate_factor, throttled_until, rate_factor <= p.floor + 1e-9 AND p.retry_after > 0";

    /**
     * Takes the next {@code count} slots of the bucket's line: from its end, or from {@code
     * p.not_before} after now if that is later, one per {@code 1 / rate_per_second} (the configured
     * rate, so the line keeps up as soon as a lowered rate recovers).
     */
    private static final String RESERVE = "UPDATE outbox_rate_bucket SET line_until = greatest(coalesce(line_until,"
            + " clock_timestamp()), clock_timestamp() + p.not_before * interval '1 microsecond')"
            + " + p.count / rate_per_second * interval '1 second'"
            + " FROM (VALUES (?::int, ?::bigint)) AS p(count, not_before) WHERE endpoint = ?"
            + " RETURNING (extract(epoch FROM line_until - clock_timestamp()) - p.count / rate_per_second) * 1e9,"
            + " 1e9 / rate_per_second";

    private static final String FACTORS = "SELECT endpoint, " + FACTOR + " FROM outbox_rate_bucket,"
            + " (VALUES (?::float8)) AS p(recovery) ORDER BY endpoint";

    private final DataSource dataSource;
    private final double minFactor;
    private final double recoveryPerSecond;

    /**
     * @param minFactor the floor of the adaptive factor, in (0, 1]
     * @param recoveryPerSecond how much of the configured rate comes back per second after a cut
     */
    RateLimitStore(DataSource dataSource, double minFactor, double recoveryPerSecond) {
        this.dataSource = dataSource;
        this.minFactor = minFactor;
        this.recoveryPerSecond = recoveryPerSecond;
    }

    /**
     * What a lease got.
     *
     * @param granted permits granted (0 to the requested number)
     * @param remaining tokens left in the bucket (negative while a Retry-After is honoured)
     * @param rate the effective rate (configured rate times the adaptive factor)
     * @param grantDelay how long after the database received the statement it granted (waiting for
     *     the row lock of a busy bucket, mostly): the grant happened at least this long after the
     *     lease was asked for
     */
    record Lease(int granted, double remaining, double rate, Duration grantDelay) {
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
                ps.setDouble(2, recoveryPerSecond);
                ps.setString(3, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    return new Lease(rs.getInt(1), rs.getDouble(2), rs.getDouble(3), Duration.ofNanos(Math.max(0, (long)
                            rs.getDouble(4))));
                }
            }
        }
    }

    /**
     * How long after its lease was asked for a permit's request may still be sent. A permit unused
     * by then is dropped, and a request whose connection is not ready by then is not sent at all
     * ({@link dev.postbox.http.FailureCause#NOT_SENT}); the delivery takes the next slot of the line
     * without spending an attempt. Allowed for in the bucket's capacity.
     */
    static final Duration SEND_ALLOWANCE = Duration.ofMillis(100);

    /**
     * The bucket's capacity for a configured burst: the most tokens that keep the receiver's bound,
     * at least 1. Every request is sent between its grant and {@code SEND_ALLOWANCE} after it, so the
     * requests that reach the receiver in any second were granted within that second or the
     * allowance before it, and the bucket grants at most {@code capacity + rate × (1 s + allowance)}
     * in that time (it refills continuously). Requests are whole: the bound of {@code rate + burst}
     * holds while that is below {@code floor(rate + burst) + 1}, so the capacity is the largest whole
     * number below {@code floor(rate + burst) + 1 - rate × (1 s + allowance)}: for 50/s burst 10, 5;
     * for 10/s burst 5, 4; for 4/s burst 2, 2. (It was the burst less the permits the rate earns in
     * the allowance rounded up, one token less whenever those are a fraction: 1 for 4/s burst 2,
     * where a bucket of one token loses what it earns while it is full, so every delivery that came
     * back later than its token pushed the following tokens later and the line's slots ran ahead of
     * them: a tenant's limit of 4/s delivered about 2.6/s.)
     */
    static int capacity(double rate, int burst) {
        double window = 1 + SEND_ALLOWANCE.toNanos() / 1e9;
        double below = Math.floor(rate + burst) + 1 - rate * window;
        return (int) Math.max(1, Math.ceil(below - 1e-9) - 1);
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

    /**
     * A cut after a 429: the new factor, when the full rate is back if no other 429 comes, and
     * whether the bucket was paused for the Retry-After (the cut left the factor at its floor).
     */
    record Throttle(double factor, Instant fullRateAt, boolean paused) {}

    /**
     * Lowers the bucket's effective rate after a 429 (see the class comment).
     *
     * @param sentAgo how long ago the request that got the 429 was sent (its attempt's duration)
     * @param retryAfter the 429's Retry-After, or null
     * @return the cut, or null when there was none (a 429 of a window already cut for, or no bucket)
     */
    @Nullable
    Throttle throttle(String key, Duration sentAgo, @Nullable Duration retryAfter) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(THROTTLE)) {
                ps.setDouble(1, minFactor);
                ps.setDouble(2, recoveryPerSecond);
                ps.setDouble(3, retryAfter == null ? 0 : retryAfter.toMillis() / 1000.0);
                ps.setLong(4, sentAgo.toMillis());
                ps.setString(5, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    return new Throttle(rs.getDouble(1), rs.getTimestamp(2).toInstant(), rs.getBoolean(3));
                }
            }
        }
    }

    /**
     * Slots of a bucket's line: the first one {@code first} from now, then one every {@code
     * spacing}, {@code count} in all.
     */
    record Slots(Duration first, Duration spacing, int count) {}

    /**
     * Takes the next {@code count} slots of the bucket's line, not earlier than {@code notBefore}
     * from now; null when the bucket does not exist.
     */
    @Nullable
    Slots reserve(String key, int count, Duration notBefore) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(RESERVE)) {
                ps.setInt(1, count);
                ps.setLong(2, notBefore.toNanos() / 1000);
                ps.setString(3, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    return new Slots(
                            Duration.ofNanos(Math.max(0, (long) rs.getDouble(1))),
                            Duration.ofNanos(Math.max(1, (long) rs.getDouble(2))),
                            count);
                }
            }
        }
    }

    /** The adaptive factor of every bucket now (1.0 = the configured rate), by bucket key. */
    Map<String, Double> factors() throws SQLException {
        Map<String, Double> factors = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(FACTORS)) {
                ps.setDouble(1, recoveryPerSecond);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        factors.put(rs.getString(1), rs.getDouble(2));
                    }
                }
            }
        }
        return factors;
    }
}
