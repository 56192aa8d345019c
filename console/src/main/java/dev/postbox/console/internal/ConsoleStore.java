package dev.postbox.console.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The console's read queries that Postbox's public admin APIs do not offer: counts per queue and
 * lane, the last hour per minute, workers, job search and the job page with fencing tokens and
 * headers, dead-letter groups, endpoint statistics and the recent fires of schedules. Writes go
 * through the public APIs ({@code PostboxAdmin}, the endpoint registry, the schedule admin).
 *
 * <p>Planner notes, per statement (proven with EXPLAIN in ConsoleStorePlanTest):
 *
 * <ul>
 *   <li>{@link #laneCounts}: one pass over the live table (kept small by design: finished jobs leave
 *       it) and one over the dead letters (a count of every row; the planner rightly prefers a
 *       sequential scan to any index for that).
 *   <li>{@link #lastHour}: BRIN {@code outbox_job_archive_finished_brin} (only the last hour's pages
 *       of the current partitions), {@code outbox_attempt_finished_idx} and {@code
 *       outbox_dead_letter_dead_at_idx}, each a range of one hour.
 *   <li>{@link #search}: ids through primary keys and {@code outbox_job_archive_id_idx};
 *       idempotency keys through {@code outbox_idempotency_key}'s primary key; everything else within
 *       the time window (BRIN on the archive, {@code dead_at} index on dead letters); ordering keys on
 *       live jobs through {@code outbox_job_tenant_ordering_idx} (schema V10; its first column is the key).
 *   <li>{@link #deadLetterGroups}: all groups are one pass over the dead letters (hash aggregate);
 *       the groups of one kind, and the replay or purge of one group, use {@code
 *       outbox_dead_letter_group_idx}.
 *   <li>{@link #endpointStats} and {@link #endpointErrors}: {@code outbox_attempt_endpoint_idx}
 *       (failed deliveries carry their endpoint in {@code detail}) and the archive's BRIN for
 *       deliveries that succeeded within the hour.
 *   <li>{@link #recentFires}: the partial {@code fire_key} indexes of live, archived and dead jobs.
 * </ul>
 */
public final class ConsoleStore {

    /** The window of the overview's chart and of the endpoint statistics. */
    public static final Duration LAST_HOUR = Duration.ofHours(1);

    static final String LANE_COUNTS = "WITH live AS (SELECT queue, lane,"
            + "   count(*) FILTER (WHERE state = 'pending' AND run_at <= now()) AS pending,"
            + "   count(*) FILTER (WHERE state = 'pending' AND run_at > now()) AS scheduled,"
            + "   count(*) FILTER (WHERE state = 'retry') AS retrying,"
            + "   count(*) FILTER (WHERE state = 'running') AS running,"
            + "   min(run_at) FILTER (WHERE state IN ('pending', 'retry') AND run_at <= now()) AS oldest_due"
            + "   FROM outbox_job GROUP BY queue, lane),"
            + " dead AS (SELECT queue, CASE WHEN priority > 0 THEN 1 WHEN priority < 0 THEN -1 ELSE 0 END AS lane,"
            + "   count(*) AS dead FROM outbox_dead_letter GROUP BY 1, 2)"
            + " SELECT coalesce(l.queue, d.queue), coalesce(l.lane, d.lane), coalesce(l.pending, 0),"
            + "   coalesce(l.scheduled, 0), coalesce(l.retrying, 0), coalesce(l.running, 0), coalesce(d.dead, 0),"
            + "   coalesce((extract(epoch FROM now() - l.oldest_due) * 1000)::bigint, 0)"
            + " FROM live l FULL JOIN dead d ON d.queue = l.queue AND d.lane = l.lane"
            + " ORDER BY 1, 2 DESC";

    static final String QUEUE_CONFIG = "SELECT name, paused, max_concurrency, updated_at FROM outbox_queue";

    static final String LAST_HOUR_SQL = "WITH m AS (SELECT generate_series(date_trunc('minute', now())"
            + "   - interval '59 minutes', date_trunc('minute', now()), interval '1 minute') AS minute),"
            + " done AS (SELECT date_trunc('minute', finished_at) AS minute, count(*) AS n FROM outbox_job_archive"
            + "   WHERE finished_at >= date_trunc('minute', now()) - interval '59 minutes' AND state = 'done'"
            + "   GROUP BY 1),"
            + " failed AS (SELECT date_trunc('minute', finished_at) AS minute, count(*) AS n FROM outbox_attempt"
            + "   WHERE finished_at >= date_trunc('minute', now()) - interval '59 minutes'"
            + "   AND outcome IN ('retry', 'dead', 'lease_expired') GROUP BY 1),"
            + " dead AS (SELECT date_trunc('minute', dead_at) AS minute, count(*) AS n FROM outbox_dead_letter"
            + "   WHERE dead_at >= date_trunc('minute', now()) - interval '59 minutes' GROUP BY 1)"
            + " SELECT m.minute, coalesce(done.n, 0), coalesce(failed.n, 0), coalesce(dead.n, 0) FROM m"
            + " LEFT JOIN done ON done.minute = m.minute LEFT JOIN failed ON failed.minute = m.minute"
            + " LEFT JOIN dead ON dead.minute = m.minute ORDER BY m.minute";

    static final String WORKERS = "SELECT id, host, queues, started_at, heartbeat_at,"
            + " heartbeat_at > now() - ?::bigint * interval '1 millisecond' FROM outbox_worker"
            + " ORDER BY heartbeat_at DESC LIMIT 200";

    private static final String LIVE_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key,"
            + " CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled' ELSE state END, attempts,"
            + " max_attempts, left(last_error, 300), created_at, run_at, NULL::timestamptz, created_at";
    private static final String ARCHIVE_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, state,"
            + " attempts, max_attempts, left(last_error, 300), created_at, NULL::timestamptz, finished_at,"
            + " finished_at";
    private static final String DEAD_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, 'dead',"
            + " attempts, max_attempts, left(last_error, 300), created_at, NULL::timestamptz, dead_at, dead_at";

    static final String JOB = "SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key,"
            + " priority, CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled' ELSE state END, attempts,"
            + " max_attempts, run_at, created_at, started_at, NULL::timestamptz, lease_owner, lease_token,"
            + " lease_until, last_error, %s FROM outbox_job WHERE id = ?"
            + " UNION ALL SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, priority, 'dead',"
            + " attempts, max_attempts, NULL, created_at, started_at, dead_at, NULL, NULL, NULL, last_error, %s"
            + " FROM outbox_dead_letter WHERE id = ?"
            + " UNION ALL (SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, priority, state,"
            + " attempts, max_attempts, NULL, created_at, started_at, finished_at, NULL, NULL, NULL, last_error, %s"
            + " FROM outbox_job_archive WHERE id = ? LIMIT 1) LIMIT 1";

    static final String ATTEMPTS = "SELECT attempt, worker, lease_token, started_at, finished_at, outcome,"
            + " status_code, left(error, 2000), duration_ms, detail ->> 'remoteAddress', detail ->> 'cause'"
            + " FROM outbox_attempt WHERE job_id = ? ORDER BY attempt, finished_at LIMIT 500";

    static final String DEAD_GROUPS = "SELECT kind, error_fingerprint, count(*), min(dead_at), max(dead_at)"
            + " FROM outbox_dead_letter WHERE dead_at >= coalesce(?::timestamptz, '-infinity')"
            + " AND dead_at < coalesce(?::timestamptz, 'infinity') AND (?::text IS NULL OR kind = ?)"
            + " GROUP BY kind, error_fingerprint ORDER BY count(*) DESC, kind, error_fingerprint LIMIT ?";

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

    /** Fire keys compare in byte order (the indexes are COLLATE "C"), so one schedule's keys are one range. */
    private static final String FIRE_KEY = "(fire_key COLLATE \"C\")";

    static final String RECENT_FIRES = "SELECT * FROM ("
            + " (SELECT " + FIRE_KEY + " AS k, id, CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled'"
            + "   ELSE state END AS state, attempts, left(last_error, 300) AS last_error,"
            + "   NULL::timestamptz AS finished_at FROM outbox_job WHERE fire_key IS NOT NULL"
            + "   AND " + FIRE_KEY + " >= ? AND " + FIRE_KEY + " < ? ORDER BY 1 DESC LIMIT ?)"
            + " UNION ALL (SELECT " + FIRE_KEY + ", id, state, attempts, left(last_error, 300), finished_at"
            + "   FROM outbox_job_archive WHERE fire_key IS NOT NULL"
            + "   AND " + FIRE_KEY + " >= ? AND " + FIRE_KEY + " < ? ORDER BY 1 DESC LIMIT ?)"
            + " UNION ALL (SELECT " + FIRE_KEY + ", id, 'dead', attempts, left(last_error, 300), dead_at"
            + "   FROM outbox_dead_letter WHERE fire_key IS NOT NULL"
            + "   AND " + FIRE_KEY + " >= ? AND " + FIRE_KEY + " < ? ORDER BY 1 DESC LIMIT ?)"
            + ") f ORDER BY k DESC, id DESC LIMIT ?";

    private final DataSource dataSource;

    public ConsoleStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    // ---- overview and queues

    /** Live and dead counts of one queue's lane (1 high, 0 normal, -1 low priority). */
    public record LaneCounts(
            String queue,
            int lane,
            long pending,
            long scheduled,
            long retrying,
            long running,
            long dead,
            Duration oldestDueAge) {}

    public List<LaneCounts> laneCounts() {
        return query(
                LANE_COUNTS,
                ps -> {},
                rs -> new LaneCounts(
                        rs.getString(1),
                        rs.getInt(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getLong(5),
                        rs.getLong(6),
                        rs.getLong(7),
                        Duration.ofMillis(Math.max(0, rs.getLong(8)))));
    }

    /** A queue's stored configuration (a queue without a row is active and uncapped). */
    public record QueueConfig(
            String name, boolean paused, @Nullable Integer maxConcurrency, Instant updatedAt) {}

    public Map<String, QueueConfig> queueConfigs() {
        Map<String, QueueConfig> byName = new LinkedHashMap<>();
        for (QueueConfig q : query(
                QUEUE_CONFIG,
                ps -> {},
                rs -> new QueueConfig(rs.getString(1), rs.getBoolean(2), (Integer) rs.getObject(3), instant(rs, 4)))) {
            byName.put(q.name(), q);
        }
        return byName;
    }

    /** One minute of the last hour: jobs done, failed attempts, jobs dead-lettered. */
    public record Minute(Instant minute, long done, long failed, long dead) {}

    public List<Minute> lastHour() {
        return query(
                LAST_HOUR_SQL, ps -> {}, rs -> new Minute(instant(rs, 1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
    }

    /** A registered worker process; alive when its heartbeat is recent. */
    public record Worker(
            String id,
            @Nullable String host,
            List<String> queues,
            Instant startedAt,
            Instant heartbeatAt,
            boolean alive) {}

    public List<Worker> workers(Duration aliveWithin) {
        return query(
                WORKERS,
                ps -> ps.setLong(1, aliveWithin.toMillis()),
                rs -> new Worker(
                        rs.getString(1),
                        rs.getString(2),
                        strings(rs.getArray(3)),
                        instant(rs, 4),
                        instant(rs, 5),
                        rs.getBoolean(6)));
    }

    // ---- jobs

    /** A job in a result list, wherever it is (live, archived, dead). */
    public record JobRow(
            long id,
            String queue,
            String kind,
            @Nullable String endpoint,
            @Nullable String orderingKey,
            @Nullable String idempotencyKey,
            String state,
            int attempts,
            int maxAttempts,
            @Nullable String lastError,
            Instant createdAt,
            @Nullable Instant runAt,
            @Nullable Instant finishedAt) {}

    /**
     * Runs a job search: exact lookups when an id or idempotency key is given, else the jobs in the
     * time window matching the other fields, newest first.
     */
    public List<JobRow> search(JobSearch q, int limit) {
        Where statement = searchStatement(q, limit);
        if (statement.sql().isEmpty()) {
            return List.of();
        }
        return query(statement.sql(), ps -> bind(ps, statement.params()), ConsoleStore::jobRow);
    }

    /** The search's statement and parameters (empty SQL when no table can match). */
    Where searchStatement(JobSearch q, int limit) {
        List<String> parts = new ArrayList<>();
        List<Object> params = new ArrayList<>();
        boolean live = q.includes("pending", "scheduled", "retry", "running");
        boolean archive = q.includes("done", "cancelled", "expired");
        boolean dead = q.includes("dead");
        if (q.id() != null) {
            if (live) {
                parts.add("(SELECT " + LIVE_COLUMNS + " FROM outbox_job WHERE id = ?)");
                params.add(q.id());
            }
            if (dead) {
                parts.add("(SELECT " + DEAD_COLUMNS + " FROM outbox_dead_letter WHERE id = ?)");
                params.add(q.id());
            }
            if (archive) {
                parts.add("(SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive WHERE id = ?)");
                params.add(q.id());
            }
        } else if (q.idempotencyKey() != null) {
            String ids = "(SELECT job_id FROM outbox_idempotency_key WHERE idempotency_key = ?)";
            if (live) {
                parts.add("(SELECT " + LIVE_COLUMNS + " FROM outbox_job WHERE id = " + ids + ")");
                params.add(q.idempotencyKey());
            }
            if (dead) {
                parts.add("(SELECT " + DEAD_COLUMNS + " FROM outbox_dead_letter WHERE id = " + ids + ")");
                params.add(q.idempotencyKey());
            }
            if (archive) {
                // Keys outlive their dedup window in the archive: look in the window as well.
                parts.add("(SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive WHERE id = " + ids
                        + " UNION SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive WHERE idempotency_key = ?"
                        + " AND finished_at >= ? AND finished_at < ?)");
                params.add(q.idempotencyKey());
                params.add(q.idempotencyKey());
                params.add(Timestamp.from(q.from()));
                params.add(Timestamp.from(q.to()));
            }
        } else {
            if (live) {
                Where w = q.where("created_at", true);
                parts.add("(SELECT " + LIVE_COLUMNS + " FROM outbox_job" + w.sql + " ORDER BY id DESC LIMIT ?)");
                params.addAll(w.params);
                params.add(limit);
            }
            if (dead) {
                Where w = q.where("dead_at", false);
                parts.add("(SELECT " + DEAD_COLUMNS + " FROM outbox_dead_letter" + w.sql
                        + " ORDER BY dead_at DESC LIMIT ?)");
                params.addAll(w.params);
                params.add(limit);
            }
            if (archive) {
                Where w = q.where("finished_at", false);
                parts.add("(SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive" + w.sql
                        + " ORDER BY finished_at DESC LIMIT ?)");
                params.addAll(w.params);
                params.add(limit);
            }
        }
        if (parts.isEmpty()) {
            return new Where("", List.of());
        }
        String sql = "SELECT * FROM (" + String.join(" UNION ALL ", parts) + ") j ORDER BY 14 DESC, 1 DESC LIMIT ?";
        params.add(limit);
        return new Where(sql, params);
    }

    /** A WHERE clause with its parameters. */
    record Where(String sql, List<Object> params) {}

    private static JobRow jobRow(ResultSet rs) throws SQLException {
        return new JobRow(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7),
                rs.getInt(8),
                rs.getInt(9),
                rs.getString(10),
                instant(rs, 11),
                nullableInstant(rs, 12),
                nullableInstant(rs, 13));
    }

    /** Everything about one job, for its page. Payload and headers only when asked for. */
    public record Job(
            long id,
            String queue,
            String kind,
            @Nullable String endpoint,
            @Nullable String orderingKey,
            @Nullable String idempotencyKey,
            @Nullable String fireKey,
            int priority,
            String state,
            int attempts,
            int maxAttempts,
            @Nullable Instant runAt,
            Instant createdAt,
            @Nullable Instant startedAt,
            @Nullable Instant finishedAt,
            @Nullable String leaseOwner,
            @Nullable Long leaseToken,
            @Nullable Instant leaseUntil,
            @Nullable String lastError,
            @Nullable String payload,
            @Nullable String headers,
            List<Attempt> attemptLog) {

        public boolean live() {
            return finishedAt == null;
        }
    }

    /** One attempt of the timeline. */
    public record Attempt(
            int attempt,
            @Nullable String worker,
            @Nullable Long leaseToken,
            @Nullable Instant startedAt,
            Instant finishedAt,
            String outcome,
            @Nullable Integer statusCode,
            @Nullable String error,
            @Nullable Long durationMillis,
            @Nullable String remoteAddress,
            @Nullable String cause) {}

    public Optional<Job> job(long id, boolean withPayload) {
        String content = withPayload ? "jsonb_pretty(payload), jsonb_pretty(headers)" : "NULL::text, NULL::text";
        String sql = String.format(JOB, content, content, content);
        return call(c -> {
            Job job = null;
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, id);
                ps.setLong(2, id);
                ps.setLong(3, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        job = new Job(
                                rs.getLong(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5),
                                rs.getString(6),
                                rs.getString(7),
                                rs.getInt(8),
                                rs.getString(9),
                                rs.getInt(10),
                                rs.getInt(11),
                                nullableInstant(rs, 12),
                                instant(rs, 13),
                                nullableInstant(rs, 14),
                                nullableInstant(rs, 15),
                                rs.getString(16),
                                (Long) rs.getObject(17),
                                nullableInstant(rs, 18),
                                rs.getString(19),
                                rs.getString(20),
                                rs.getString(21),
                                List.of());
                    }
                }
            }
            if (job == null) {
                return Optional.<Job>empty();
            }
            List<Attempt> attempts = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(ATTEMPTS)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        attempts.add(new Attempt(
                                rs.getInt(1),
                                rs.getString(2),
                                (Long) rs.getObject(3),
                                nullableInstant(rs, 4),
                                instant(rs, 5),
                                rs.getString(6),
                                (Integer) rs.getObject(7),
                                rs.getString(8),
                                (Long) rs.getObject(9),
                                rs.getString(10),
                                rs.getString(11)));
                    }
                }
            }
            return Optional.of(new Job(
                    job.id(),
                    job.queue(),
                    job.kind(),
                    job.endpoint(),
                    job.orderingKey(),
                    job.idempotencyKey(),
                    job.fireKey(),
                    job.priority(),
                    job.state(),
                    job.attempts(),
                    job.maxAttempts(),
                    job.runAt(),
                    job.createdAt(),
                    job.startedAt(),
                    job.finishedAt(),
                    job.leaseOwner(),
                    job.leaseToken(),
                    job.leaseUntil(),
                    job.lastError(),
                    job.payload(),
                    job.headers(),
                    List.copyOf(attempts)));
        });
    }

    // ---- dead letters

    /** Dead letters of one kind that failed the same way. */
    public record DeadGroup(String kind, String fingerprint, long count, Instant firstDeadAt, Instant lastDeadAt) {}

    public List<DeadGroup> deadLetterGroups(
            @Nullable Instant from, @Nullable Instant to, @Nullable String kind, int limit) {
        return query(
                DEAD_GROUPS,
                ps -> {
                    ps.setTimestamp(1, from == null ? null : Timestamp.from(from));
                    ps.setTimestamp(2, to == null ? null : Timestamp.from(to));
                    ps.setString(3, kind);
                    ps.setString(4, kind);
                    ps.setInt(5, limit);
                },
                rs -> new DeadGroup(rs.getString(1), rs.getString(2), rs.getLong(3), instant(rs, 4), instant(rs, 5)));
    }

    /** The database's clock: confirmations pin the dead letters they counted to before this instant. */
    public Instant databaseNow() {
        return query("SELECT clock_timestamp()", ps -> {}, rs -> instant(rs, 1)).get(0);
    }

    // ---- webhook endpoints

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
        List<EndpointStats> rows = call(c -> {
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
        List<RateBucket> rows = call(c -> {
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
        return query(
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

    // ---- schedules

    /** A materialised fire of a schedule and its job, wherever the job is now. */
    public record Fire(
            Instant fireAt,
            long jobId,
            String state,
            int attempts,
            @Nullable String lastError,
            @Nullable Instant finishedAt) {}

    /** The latest fires of a schedule, newest first (fire keys are {@code name@<instant>}). */
    public List<Fire> recentFires(String schedule, int limit) {
        String from = schedule + "@";
        String to = schedule + "A"; // 'A' follows '@': every key of this schedule sorts in [from, to)
        return query(
                RECENT_FIRES,
                ps -> {
                    for (int table = 0; table < 3; table++) {
                        ps.setString(table * 3 + 1, from);
                        ps.setString(table * 3 + 2, to);
                        ps.setInt(table * 3 + 3, limit);
                    }
                    ps.setInt(10, limit);
                },
                rs -> new Fire(
                        Instant.parse(rs.getString(1).substring(from.length())),
                        rs.getLong(2),
                        rs.getString(3),
                        rs.getInt(4),
                        rs.getString(5),
                        nullableInstant(rs, 6)));
    }

    // ---- plumbing

    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    interface Mapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    interface SqlCall<T> {
        T apply(Connection c) throws SQLException;
    }

    private <T> List<T> query(String sql, Binder binder, Mapper<T> mapper) {
        return call(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                List<T> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(mapper.map(rs));
                    }
                }
                return out;
            }
        });
    }

    private <T> T call(SqlCall<T> call) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return call.apply(c);
        } catch (SQLException e) {
            throw new IllegalStateException("Postbox console query failed: " + e.getMessage(), e);
        }
    }

    private static void bind(PreparedStatement ps, List<Object> params) throws SQLException {
        int i = 1;
        for (Object p : params) {
            ps.setObject(i++, p);
        }
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getTimestamp(column).toInstant();
    }

    private static @Nullable Instant nullableInstant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private static List<String> strings(@Nullable Array array) throws SQLException {
        if (array == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Object v : (Object[]) array.getArray()) {
            out.add((String) v);
        }
        return out;
    }
}
