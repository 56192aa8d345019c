package dev.postbox.internal;

import dev.postbox.DeadLetter;
import dev.postbox.DeadLetterFilter;
import dev.postbox.JobDetails;
import dev.postbox.QueueStats;
import dev.postbox.TaggedJob;
import dev.postbox.TenantStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the admin operations: job lookup, dead letters, cancel, pause, statistics. Operations
 * that take a tenant key ({@code ""} for the default tenant, null for every tenant) add {@code
 * coalesce(tenant, '') = ?} to every row they read or write, so a tenant's operation never touches
 * another tenant's rows.
 */
public final class AdminStore {

    private static final String REPLAY_COLUMNS =
            "id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, payload, headers, priority, max_attempts,"
                    + " tenant, tags, time_limit_ms";

    /**
     * Every job row, live, archived or dead, with its tenant: the tables of {@code outbox_job_status}
     * and each row's own payload, so that the status and the payload shown are always one job's.
     */
    private static final String ANY_JOB = "SELECT id, queue, kind,"
            + " CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled' ELSE state END AS state, attempts,"
            + " max_attempts, run_at, last_error, created_at, NULL::timestamptz AS finished_at, payload::text AS payload,"
            + " tenant, NULL::text AS result, tags, time_limit_ms::bigint AS time_limit_ms FROM outbox_job"
            + " UNION ALL SELECT id, queue, kind, state, attempts, max_attempts, NULL, last_error, created_at,"
            + " finished_at, payload::text, tenant, result::text, tags, NULL FROM outbox_job_archive"
            + " UNION ALL SELECT id, queue, kind, 'dead', attempts, max_attempts, NULL, last_error, created_at, dead_at,"
            + " payload::text, tenant, NULL, tags, time_limit_ms::bigint FROM outbox_dead_letter";

    public Optional<JobDetails> job(Connection c, long id) throws SQLException {
        return job(c, id, null);
    }

    /**
     * The job with this id, live, archived or dead, of the tenant when a tenant key is given (null:
     * any tenant). The tenant and the id are matched in one statement on the row that is returned, so
     * after a rewind of the id sequence (a restore from backup), when two jobs share an id, a tenant
     * gets its own job or nothing; with two jobs of one id in scope, the newest. Its attempts are the
     * attempt log's rows of that id written during its lifetime (from its creation to its end): the
     * log has no tenant, and the other job's attempts fall outside that window.
     */
    public Optional<JobDetails> job(Connection c, long id, @Nullable String tenantKey) throws SQLException {
        String sql = "SELECT id, queue, kind, state, attempts, max_attempts, run_at, last_error, created_at,"
                + " finished_at, payload, result, tags, time_limit_ms FROM (" + ANY_JOB + ") j"
                + " WHERE id = ? AND (?::text IS NULL OR coalesce(tenant, '') = ?)"
                + " ORDER BY created_at DESC LIMIT 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, id);
            ps.setString(2, tenantKey);
            ps.setString(3, tenantKey);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Timestamp createdAt = rs.getTimestamp(9);
                Timestamp finishedAt = rs.getTimestamp(10);
                return Optional.of(new JobDetails(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getInt(5),
                        rs.getInt(6),
                        Sql.instant(rs.getTimestamp(7)),
                        rs.getString(8),
                        createdAt.toInstant(),
                        Sql.instant(finishedAt),
                        rs.getString(11),
                        attempts(c, id, createdAt, finishedAt),
                        rs.getString(12),
                        JobTags.read(rs.getArray(13)),
                        (Long) rs.getObject(14, Long.class)));
            }
        }
    }

    /**
     * The jobs of the tenant (its key: '' for the default tenant) whose tags contain all of {@code
     * tags}, newest first. Each branch is a bitmap scan of its table's partial GIN index ({@code tags
     * @> ...} implies {@code tags IS NOT NULL}); the tenant is a filter on the rows found.
     */
    /** Jobs with every one of the tags, of one tenant ({@code tenantKey}, '' the default) or of all (null). */
    public List<TaggedJob> jobsTagged(Connection c, @Nullable String tenantKey, Map<String, String> tags, int limit)
            throws SQLException {
        String match = " WHERE tags @> ?::text[]" + (tenantKey == null ? "" : " AND coalesce(tenant, '') = ?")
                + " ORDER BY id DESC LIMIT ?)";
        String sql = "(SELECT id, queue, kind, state, tenant, tags, created_at, NULL::timestamptz FROM outbox_job"
                + match
                + " UNION ALL (SELECT id, queue, kind, state, tenant, tags, created_at, finished_at"
                + " FROM outbox_job_archive" + match
                + " UNION ALL (SELECT id, queue, kind, 'dead', tenant, tags, created_at, dead_at FROM outbox_dead_letter"
                + match
                + " ORDER BY id DESC LIMIT ?";
        String[] elements = JobTags.elements(tags);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (int branch = 0; branch < 3; branch++) {
                ps.setArray(i++, c.createArrayOf("text", elements));
                if (tenantKey != null) {
                    ps.setString(i++, tenantKey);
                }
                ps.setInt(i++, limit);
            }
            ps.setInt(i, limit);
            List<TaggedJob> found = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(new TaggedJob(
                            rs.getLong(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5),
                            JobTags.read(rs.getArray(6)),
                            rs.getTimestamp(7).toInstant(),
                            Sql.instant(rs.getTimestamp(8))));
                }
            }
            return found;
        }
    }

    private List<JobDetails.Attempt> attempts(
            Connection c, long id, Timestamp createdAt, @Nullable Timestamp finishedAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT attempt, worker, started_at, finished_at, outcome,"
                + " status_code, error, duration_ms, detail::text FROM outbox_attempt WHERE job_id = ? AND finished_at >= ?"
                + " AND (?::timestamptz IS NULL OR finished_at <= ?) ORDER BY finished_at, attempt")) {
            ps.setLong(1, id);
            ps.setTimestamp(2, createdAt);
            ps.setTimestamp(3, finishedAt);
            ps.setTimestamp(4, finishedAt);
            List<JobDetails.Attempt> attempts = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    attempts.add(new JobDetails.Attempt(
                            rs.getInt(1),
                            rs.getString(2),
                            Sql.instant(rs.getTimestamp(3)),
                            rs.getTimestamp(4).toInstant(),
                            rs.getString(5),
                            (Integer) rs.getObject(6),
                            rs.getString(7),
                            (Long) rs.getObject(8),
                            rs.getString(9)));
                }
            }
            return attempts;
        }
    }

    /** A WHERE clause over outbox_dead_letter with its parameters, built from a filter. */
    private record Where(String sql, List<Object> params) {
        static Where of(DeadLetterFilter f) {
            return of(f, null);
        }

        static Where of(DeadLetterFilter f, @Nullable String tenantKey) {
            StringBuilder sql = new StringBuilder(" WHERE true");
            List<Object> params = new ArrayList<>();
            if (tenantKey != null) {
                add(sql, params, " AND coalesce(tenant, '') = ?", tenantKey);
            }
            f.queue().ifPresent(v -> add(sql, params, " AND queue = ?", v));
            f.kind().ifPresent(v -> add(sql, params, " AND kind = ?", v));
            f.endpoint().ifPresent(v -> add(sql, params, " AND endpoint = ?", v));
            f.errorContains().ifPresent(v -> add(sql, params, " AND strpos(lower(last_error), lower(?)) > 0", v));
            f.deadFrom().ifPresent(v -> add(sql, params, " AND dead_at >= ?", java.sql.Timestamp.from(v)));
            f.deadTo().ifPresent(v -> add(sql, params, " AND dead_at < ?", java.sql.Timestamp.from(v)));
            f.errorFingerprint().ifPresent(v -> add(sql, params, " AND error_fingerprint = ?", v));
            f.errorStatus().ifPresent(v -> add(sql, params, " AND error_status = ?", v));
            f.cause().ifPresent(v -> add(sql, params, " AND cause = ?", v));
            f.ids()
                    .ifPresent(v -> add(
                            sql,
                            params,
                            " AND id = ANY(?)",
                            v.stream().mapToLong(Long::longValue).toArray()));
            return new Where(sql.toString(), params);
        }

        private static void add(StringBuilder sql, List<Object> params, String clause, Object value) {
            sql.append(clause);
            params.add(value);
        }

        int bind(PreparedStatement ps, int from) throws SQLException {
            int i = from;
            for (Object p : params) {
                ps.setObject(i++, p);
            }
            return i;
        }
    }

    public List<DeadLetter> deadLetters(Connection c, DeadLetterFilter filter, int limit) throws SQLException {
        return deadLetters(c, filter, null, limit);
    }

    public List<DeadLetter> deadLetters(Connection c, DeadLetterFilter filter, @Nullable String tenantKey, int limit)
            throws SQLException {
        Where where = Where.of(filter, tenantKey);
        String sql = "SELECT id, queue, kind, endpoint, idempotency_key, attempts, max_attempts, last_error,"
                + " created_at, dead_at, tenant FROM outbox_dead_letter" + where.sql()
                + " ORDER BY dead_at DESC, id DESC LIMIT ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(where.bind(ps, 1), limit);
            List<DeadLetter> letters = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    letters.add(new DeadLetter(
                            rs.getLong(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5),
                            rs.getInt(6),
                            rs.getInt(7),
                            rs.getString(8),
                            rs.getTimestamp(9).toInstant(),
                            rs.getTimestamp(10).toInstant(),
                            rs.getString(11)));
                }
            }
            return letters;
        }
    }

    public long deadLetterCount(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM outbox_dead_letter");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public long deadLetterCount(Connection c, DeadLetterFilter filter) throws SQLException {
        return deadLetterCount(c, filter, null);
    }

    public long deadLetterCount(Connection c, DeadLetterFilter filter, @Nullable String tenantKey) throws SQLException {
        Where where = Where.of(filter, tenantKey);
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM outbox_dead_letter" + where.sql())) {
            where.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    public int replay(Connection c, long id) throws SQLException {
        return replay(c, " WHERE id = ?", List.of(id));
    }

    public int replay(Connection c, DeadLetterFilter filter) throws SQLException {
        return replay(c, filter, null);
    }

    public int replay(Connection c, DeadLetterFilter filter, @Nullable String tenantKey) throws SQLException {
        Where where = Where.of(filter, tenantKey);
        return replay(c, where.sql(), where.params());
    }

    /** Replays one dead letter of the tenant; 0 when it has no dead letter with this id. */
    public int replay(Connection c, long id, String tenantKey) throws SQLException {
        return replay(c, " WHERE id = ? AND coalesce(tenant, '') = ?", List.of(id, tenantKey));
    }

    private int replay(Connection c, String where, List<Object> params) throws SQLException {
        String sql = "WITH r AS (DELETE FROM outbox_dead_letter" + where + " RETURNING *)"
                + " INSERT INTO outbox_job (" + REPLAY_COLUMNS + ", state, attempts, run_at, created_at)"
                + " SELECT " + REPLAY_COLUMNS + ", 'pending', 0, now(), created_at FROM r";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            new Where(where, params).bind(ps, 1);
            return ps.executeUpdate();
        }
    }

    public int purge(Connection c, DeadLetterFilter filter) throws SQLException {
        return purge(c, filter, null);
    }

    public int purge(Connection c, DeadLetterFilter filter, @Nullable String tenantKey) throws SQLException {
        Where where = Where.of(filter, tenantKey);
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_dead_letter" + where.sql())) {
            where.bind(ps, 1);
            return ps.executeUpdate();
        }
    }

    public boolean cancel(Connection c, long id) throws SQLException {
        return cancel(c, id, null);
    }

    /** Cancels a waiting job (of the tenant, when a tenant key is given). */
    public boolean cancel(Connection c, long id, @Nullable String tenantKey) throws SQLException {
        String sql = "WITH x AS (DELETE FROM outbox_job WHERE id = ? AND state IN ('pending', 'retry')"
                + (tenantKey == null ? "" : " AND coalesce(tenant, '') = ?")
                + " RETURNING *)"
                + " INSERT INTO outbox_job_archive (" + JobStore.ARCHIVE_COLUMNS + ")"
                + " SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, payload, headers,"
                + " priority, tenant, tags, 'cancelled', attempts, max_attempts, last_error, created_at, started_at, now() FROM x";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, id);
            if (tenantKey != null) {
                ps.setString(2, tenantKey);
            }
            return ps.executeUpdate() > 0;
        }
    }

    public Void setTenantPaused(Connection c, String tenantKey, boolean paused) throws SQLException {
        return upsert(c, TENANT_SETTINGS, tenantKey, new Setting("paused", paused, Types.BOOLEAN));
    }

    public Void setTenantMaxRunning(Connection c, String tenantKey, @Nullable Integer max) throws SQLException {
        return upsert(c, TENANT_SETTINGS, tenantKey, new Setting("max_running", max, Types.INTEGER));
    }

    public Void setTenantWebhookRate(
            Connection c, String tenantKey, @Nullable Double perSecond, @Nullable Integer burst) throws SQLException {
        return upsert(
                c,
                TENANT_SETTINGS,
                tenantKey,
                new Setting("rate_per_second", perSecond, Types.DOUBLE),
                new Setting("rate_burst", burst, Types.INTEGER));
    }

    /**
     * The tenants with live jobs or settings, the worst first (oldest due job), at most {@code
     * limit}; or only the given tenant. Reads the live table (small by design) once.
     */
    public List<TenantStats> tenantStats(Connection c, @Nullable String onlyTenantKey, int limit) throws SQLException {
        String sql = "WITH live AS (SELECT coalesce(tenant, '') AS t,"
                + "   count(*) FILTER (WHERE state IN ('pending', 'retry') AND run_at <= now()) AS due,"
                + "   count(*) FILTER (WHERE state = 'running') AS running,"
                + "   min(run_at) FILTER (WHERE state IN ('pending', 'retry') AND run_at <= now()) AS oldest"
                + "   FROM outbox_job WHERE (?::text IS NULL OR coalesce(tenant, '') = ?) GROUP BY 1),"
                + " names AS (SELECT t FROM live UNION SELECT tenant FROM outbox_tenant"
                + "   WHERE ?::text IS NULL OR tenant = ?)"
                + " SELECT n.t, coalesce(l.due, 0), coalesce(l.running, 0),"
                + "   coalesce(extract(epoch FROM now() - l.oldest) * 1000, 0)::bigint,"
                + "   coalesce(p.paused, false), p.max_running"
                + " FROM names n LEFT JOIN live l ON l.t = n.t LEFT JOIN outbox_tenant p ON p.tenant = n.t"
                + " ORDER BY l.oldest NULLS LAST, n.t LIMIT ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, onlyTenantKey);
            ps.setString(2, onlyTenantKey);
            ps.setString(3, onlyTenantKey);
            ps.setString(4, onlyTenantKey);
            ps.setInt(5, limit);
            List<TenantStats> stats = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString(1);
                    stats.add(new TenantStats(
                            key.isEmpty() ? null : key,
                            rs.getLong(2),
                            rs.getLong(3),
                            Duration.ofMillis(Math.max(0, rs.getLong(4))),
                            rs.getBoolean(5),
                            (Integer) rs.getObject(6)));
                }
            }
            return stats;
        }
    }

    public Void setPaused(Connection c, String queue, boolean paused) throws SQLException {
        return upsert(c, QUEUE_SETTINGS, queue, new Setting("paused", paused, Types.BOOLEAN));
    }

    public Void setMaxConcurrency(Connection c, String queue, @Nullable Integer max) throws SQLException {
        return upsert(c, QUEUE_SETTINGS, queue, new Setting("max_concurrency", max, Types.INTEGER));
    }

    /** A settings table and its key column: one row per queue or tenant, created on first write. */
    private record SettingsTable(String table, String keyColumn) {}

    private static final SettingsTable QUEUE_SETTINGS = new SettingsTable("outbox_queue", "name");
    private static final SettingsTable TENANT_SETTINGS = new SettingsTable("outbox_tenant", "tenant");

    /** One column of a settings row and its new value (null clears it). */
    private record Setting(String column, @Nullable Object value, int sqlType) {}

    /**
     * Sets columns of the settings row of {@code key} in one atomic upsert, creating the row with the
     * table's defaults for the other columns. Table and column names are this class's constants.
     */
    private static Void upsert(Connection c, SettingsTable t, String key, Setting... settings) throws SQLException {
        StringBuilder columns = new StringBuilder(t.keyColumn());
        StringBuilder values = new StringBuilder("?");
        StringBuilder updates = new StringBuilder();
        for (Setting s : settings) {
            columns.append(", ").append(s.column());
            values.append(", ?");
            updates.append(s.column()).append(" = excluded.").append(s.column()).append(", ");
        }
        String sql = "INSERT INTO " + t.table() + " (" + columns + ") VALUES (" + values + ")" + " ON CONFLICT ("
                + t.keyColumn() + ") DO UPDATE SET " + updates + "updated_at = now()";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, key);
            for (int i = 0; i < settings.length; i++) {
                ps.setObject(i + 2, settings[i].value(), settings[i].sqlType());
            }
            ps.executeUpdate();
        }
        return null;
    }

    public List<QueueStats> queueStats(Connection c) throws SQLException {
        String sql = "WITH live AS (SELECT queue,"
                + "   count(*) FILTER (WHERE state IN ('pending', 'retry') AND run_at <= now()) AS due,"
                + "   count(*) FILTER (WHERE state IN ('pending', 'retry') AND run_at > now()) AS scheduled,"
                + "   count(*) FILTER (WHERE state = 'running') AS running,"
                + "   min(run_at) FILTER (WHERE state IN ('pending', 'retry') AND run_at <= now()) AS oldest"
                + "   FROM outbox_job GROUP BY queue),"
                + " dead AS (SELECT queue, count(*) AS dead FROM outbox_dead_letter GROUP BY queue),"
                + " names AS (SELECT queue FROM live UNION SELECT queue FROM dead UNION SELECT name FROM outbox_queue)"
                + " SELECT n.queue, coalesce(l.due, 0), coalesce(l.scheduled, 0), coalesce(l.running, 0),"
                + "   coalesce(extract(epoch FROM now() - l.oldest) * 1000, 0)::bigint, coalesce(d.dead, 0),"
                + "   coalesce(q.paused, false)"
                + " FROM names n LEFT JOIN live l ON l.queue = n.queue LEFT JOIN dead d ON d.queue = n.queue"
                + " LEFT JOIN outbox_queue q ON q.name = n.queue ORDER BY n.queue";
        try (PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            List<QueueStats> stats = new ArrayList<>();
            while (rs.next()) {
                stats.add(new QueueStats(
                        rs.getString(1),
                        rs.getLong(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        Duration.ofMillis(Math.max(0, rs.getLong(5))),
                        rs.getLong(6),
                        rs.getBoolean(7)));
            }
            return stats;
        }
    }
}
