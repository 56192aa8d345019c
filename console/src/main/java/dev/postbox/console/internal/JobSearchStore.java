package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.bind;
import static dev.postbox.console.internal.ConsoleDatabase.instant;
import static dev.postbox.console.internal.ConsoleDatabase.nullableInstant;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The jobs page's search: exact lookups by id or idempotency key, else the jobs of a time window that
 * match the other fields, in the live table, the archive and the dead letters.
 *
 * <p>Planner note ({@code searchStatement}, proven with EXPLAIN in ConsoleStatementPlanTest): ids
 * through primary keys and {@code outbox_job_archive_id_idx}; idempotency keys through {@code
 * outbox_idempotency_key}'s primary key; everything else within the time window (BRIN on the
 * archive, {@code dead_at} index on dead letters); ordering keys on live jobs through {@code
 * outbox_job_tenant_ordering_idx} (schema V10; its first column is the key).
 */
public final class JobSearchStore {

    private static final String LIVE_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key,"
            + " CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled' ELSE state END, attempts,"
            + " max_attempts, left(last_error, 300), created_at, run_at, NULL::timestamptz, created_at, tenant";
    private static final String ARCHIVE_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, state,"
            + " attempts, max_attempts, left(last_error, 300), created_at, NULL::timestamptz, finished_at,"
            + " finished_at, tenant";
    private static final String DEAD_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, 'dead',"
            + " attempts, max_attempts, left(last_error, 300), created_at, NULL::timestamptz, dead_at, dead_at, tenant";

    private final ConsoleDatabase database;

    public JobSearchStore(ConsoleDatabase database) {
        this.database = database;
    }

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
            @Nullable Instant finishedAt,
            @Nullable String tenant) {}

    /**
     * Runs a job search: exact lookups when an id or idempotency key is given, else the jobs in the
     * time window matching the other fields, newest first.
     */
    public List<JobRow> search(JobSearch q, int limit) {
        Where statement = searchStatement(q, limit);
        if (statement.sql().isEmpty()) {
            return List.of();
        }
        return database.list(statement.sql(), ps -> bind(ps, statement.params()), JobSearchStore::jobRow);
    }

    /** The search's statement and parameters (empty SQL when no table can match). */
    Where searchStatement(JobSearch q, int limit) {
        List<String> parts = new ArrayList<>();
        List<Object> params = new ArrayList<>();
        boolean live = q.includes("pending", "scheduled", "retry", "running");
        boolean archive = q.includes("done", "cancelled", "expired");
        boolean dead = q.includes("dead");
        // A tenant filter scopes the exact lookups too: the tenant and the id (or key) together.
        String tenant = q.tenant() == null ? "" : JobSearch.TENANT;
        if (q.id() != null) {
            if (live) {
                parts.add("(SELECT " + LIVE_COLUMNS + " FROM outbox_job WHERE id = ?" + tenant + ")");
                params.add(q.id());
                addTenant(params, q);
            }
            if (dead) {
                parts.add("(SELECT " + DEAD_COLUMNS + " FROM outbox_dead_letter WHERE id = ?" + tenant + ")");
                params.add(q.id());
                addTenant(params, q);
            }
            if (archive) {
                parts.add("(SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive WHERE id = ?" + tenant + ")");
                params.add(q.id());
                addTenant(params, q);
            }
        } else if (q.idempotencyKey() != null) {
            String ids = "(SELECT job_id FROM outbox_idempotency_key WHERE idempotency_key = ?)";
            if (live) {
                parts.add("(SELECT " + LIVE_COLUMNS + " FROM outbox_job WHERE id = " + ids + tenant + ")");
                params.add(q.idempotencyKey());
                addTenant(params, q);
            }
            if (dead) {
                parts.add("(SELECT " + DEAD_COLUMNS + " FROM outbox_dead_letter WHERE id = " + ids + tenant + ")");
                params.add(q.idempotencyKey());
                addTenant(params, q);
            }
            if (archive) {
                // Keys outlive their dedup window in the archive: look in the window as well.
                parts.add("(SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive WHERE id = " + ids + tenant
                        + " UNION SELECT " + ARCHIVE_COLUMNS + " FROM outbox_job_archive WHERE idempotency_key = ?"
                        + " AND finished_at >= ? AND finished_at < ?" + tenant + ")");
                params.add(q.idempotencyKey());
                addTenant(params, q);
                params.add(q.idempotencyKey());
                params.add(Timestamp.from(q.from()));
                params.add(Timestamp.from(q.to()));
                addTenant(params, q);
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

    private static void addTenant(List<Object> params, JobSearch q) {
        String tenant = q.tenant();
        if (tenant != null) {
            params.add(tenant);
        }
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
                nullableInstant(rs, 13),
                rs.getString(15));
    }
}
