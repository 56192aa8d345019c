package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;
import static dev.postbox.console.internal.ConsoleDatabase.nullableInstant;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The webhook pages' figures of each endpoint: deliveries and latency within the last hour, its
 * cluster-wide rate bucket, and its latest failed attempts. The endpoints themselves come from the
 * endpoint registry ({@link dev.postbox.spring.endpoint.WebhookEndpointAdmin}).
 *
 * <p>Planner note ({@code ENDPOINT_STATS} and {@code ENDPOINT_ERRORS}, proven with EXPLAIN in
 * ConsoleStatementPlanTest): {@code outbox_attempt_endpoint_idx} (failed deliveries carry their
 * endpoint in {@code detail}) and the archive's BRIN for deliveries that succeeded within the hour.
 */
public final class EndpointStatsStore {

    static final String ENDPOINT_STATS = "WITH failed AS (SELECT detail ->> 'endpoint' AS endpoint,"
            + "   count(*) FILTER (WHERE outcome IN ('retry', 'dead')) AS failed, max(finished_at) AS last_failure"
            + "   FROM outbox_attempt WHERE (detail ->> 'endpoint') = ANY(?)"
            + "   AND finished_at >= now() - interval '1 hour' GROUP BY 1),"
            + " delivered AS (SELECT id, endpoint, attempts FROM outbox_job_archive"
            + "   WHERE finished_at >= now() - interval '1 hour' AND endpoint = ANY(?) AND state = 'done'),"
            + " ok AS (SELECT endpoint, count(*) AS n FROM delivered GROUP BY endpoint),"
            + " durations AS (SELECT detail ->> 'endpoint' AS endpoint, duration_ms FROM outbox_attempt"
            + "     WHERE (detail ->> 'endpoint') = ANY(?) AND finished_at >= now() - interval '1 hour'"
            + "     AND duration_ms IS NOT NULL"
            + "   UNION ALL SELECT d.endpoint, a.duration_ms FROM delivered d"
            + "     JOIN outbox_attempt a ON a.job_id = d.id AND a.attempt = d.attempts AND a.outcome = 'done'),"
            + " latency AS (SELECT endpoint, percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,"
            + "   percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99, count(*) AS timed"
            + "   FROM durations GROUP BY endpoint)"
            + " SELECT e.name, coalesce(ok.n, 0), coalesce(f.failed, 0), l.p50, l.p99, coalesce(l.timed, 0)"
            + " FROM unnest(?::text[]) AS e(name) LEFT JOIN ok ON ok.endpoint = e.name"
            + " LEFT JOIN failed f ON f.endpoint = e.name LEFT JOIN latency l ON l.endpoint = e.name";

    static final String RATE_BUCKETS = "SELECT endpoint, rate_per_second, burst, rate_factor,"
            + " throttled_until, coalesce(throttled_until > now(), false) FROM outbox_rate_bucket"
            + " WHERE endpoint = ANY(?)";

    static final String ENDPOINT_ERRORS = "SELECT finished_at, job_id, attempt, outcome, status_code,"
            + " left(coalesce(error, detail ->> 'error'), 500), duration_ms FROM outbox_attempt"
            + " WHERE (detail ->> 'endpoint') = ? ORDER BY finished_at DESC LIMIT ?";

    private final ConsoleDatabase database;

    public EndpointStatsStore(ConsoleDatabase database) {
        this.database = database;
    }

    /** Deliveries of an endpoint within the last hour. p50/p99 are null when no attempt was timed. */
    public record EndpointStats(
            String endpoint,
            long delivered,
            long failedAttempts,
            @Nullable Double p50Millis,
            @Nullable Double p99Millis,
            long timedAttempts) {

        /** Share of delivered among delivered and failed attempts; null without traffic. */
        public @Nullable Double successRate() {
            long total = delivered + failedAttempts;
            return total == 0 ? null : (double) delivered / total;
        }
    }

    public Map<String, EndpointStats> endpointStats(List<String> endpoints) {
        Map<String, EndpointStats> byName = new LinkedHashMap<>();
        if (endpoints.isEmpty()) {
            return byName;
        }
        String[] names = endpoints.toArray(String[]::new);
        List<EndpointStats> rows = database.call(c -> {
            try (PreparedStatement ps = c.prepareStatement(ENDPOINT_STATS)) {
                Array array = c.createArrayOf("text", names);
                for (int i = 1; i <= 4; i++) {
                    ps.setArray(i, array);
                }
                List<EndpointStats> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new EndpointStats(
                                rs.getString(1),
                                rs.getLong(2),
                                rs.getLong(3),
                                (Double) rs.getObject(4),
                                (Double) rs.getObject(5),
                                rs.getLong(6)));
                    }
                }
                return out;
            }
        });
        rows.forEach(r -> byName.put(r.endpoint(), r));
        return byName;
    }

    /** An endpoint's cluster-wide rate bucket: configured rate, adaptive factor, effective rate. */
    public record RateBucket(
            String endpoint,
            double ratePerSecond,
            int burst,
            double factor,
            @Nullable Instant throttledUntil,
            boolean throttled) {

        public double currentRate() {
            return throttled ? ratePerSecond * factor : ratePerSecond;
        }
    }

    public Map<String, RateBucket> rateBuckets(List<String> endpoints) {
        Map<String, RateBucket> byName = new LinkedHashMap<>();
        if (endpoints.isEmpty()) {
            return byName;
        }
        String[] names = endpoints.toArray(String[]::new);
        List<RateBucket> rows = database.call(c -> {
            try (PreparedStatement ps = c.prepareStatement(RATE_BUCKETS)) {
                ps.setArray(1, c.createArrayOf("text", names));
                List<RateBucket> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new RateBucket(
                                rs.getString(1),
                                rs.getDouble(2),
                                rs.getInt(3),
                                rs.getDouble(4),
                                nullableInstant(rs, 5),
                                rs.getBoolean(6)));
                    }
                }
                return out;
            }
        });
        rows.forEach(r -> byName.put(r.endpoint(), r));
        return byName;
    }

    /** A failed delivery attempt of an endpoint. */
    public record EndpointError(
            Instant at,
            long jobId,
            int attempt,
            String outcome,
            @Nullable Integer statusCode,
            @Nullable String error,
            @Nullable Long durationMillis) {}

    public List<EndpointError> endpointErrors(String endpoint, int limit) {
        return database.list(
                ENDPOINT_ERRORS,
                ps -> {
                    ps.setString(1, endpoint);
                    ps.setInt(2, limit);
                },
                rs -> new EndpointError(
                        instant(rs, 1),
                        rs.getLong(2),
                        rs.getInt(3),
                        rs.getString(4),
                        (Integer) rs.getObject(5),
                        rs.getString(6),
                        (Long) rs.getObject(7)));
    }
}
