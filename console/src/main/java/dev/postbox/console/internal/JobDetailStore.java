package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;
import static dev.postbox.console.internal.ConsoleDatabase.nullableInstant;
import static dev.postbox.console.internal.ConsoleDatabase.strings;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The job page: everything about one job, wherever it is (live, archived or dead), with its fencing
 * token, lease, headers and attempt timeline.
 */
public final class JobDetailStore {

    /**
     * One job wherever it is; {@code %1$s} is the payload and headers (or nulls), {@code %2$s} the
     * archive's result (or null). The time limit is not kept in the archive; only the archive has results.
     */
    static final String JOB = "SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key,"
            + " priority, CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled' ELSE state END, attempts,"
            + " max_attempts, run_at, created_at, started_at, NULL::timestamptz, lease_owner, lease_token,"
            + " lease_until, last_error, %1$s, tenant, tags, time_limit_ms, NULL::text, false FROM outbox_job WHERE id = ?"
            + " UNION ALL SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, priority, 'dead',"
            + " attempts, max_attempts, NULL, created_at, started_at, dead_at, NULL, NULL, NULL, last_error, %1$s,"
            + " tenant, tags, time_limit_ms, NULL::text, false FROM outbox_dead_letter WHERE id = ?"
            + " UNION ALL (SELECT id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, priority, state,"
            + " attempts, max_attempts, NULL, created_at, started_at, finished_at, NULL, NULL, NULL, last_error, %1$s,"
            + " tenant, tags, NULL::integer, %2$s, result IS NOT NULL FROM outbox_job_archive WHERE id = ? LIMIT 1)"
            + " LIMIT 1";

    static final String ATTEMPTS = "SELECT attempt, worker, lease_token, started_at, finished_at, outcome,"
            + " status_code, left(error, 2000), duration_ms, detail ->> 'remoteAddress', detail ->> 'cause',"
            + " CASE WHEN outcome = 'timed_out' THEN (detail ->> 'timeLimitMs')::bigint END"
            + " FROM outbox_attempt WHERE job_id = ? ORDER BY attempt, finished_at LIMIT 500";

    private final ConsoleDatabase database;

    public JobDetailStore(ConsoleDatabase database) {
        this.database = database;
    }

    /**
     * Everything about one job, for its page. Payload, headers and result only when asked for.
     *
     * @param tags the job's tags, each {@code key=value}, sorted by key; empty for none
     * @param timeLimitMillis the job's own time limit per attempt; null when it has none, and in the archive
     * @param result a done job's result as pretty JSON, when asked for and it has one
     * @param hasResult whether the job has a result (shown or not)
     */
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
            @Nullable String tenant,
            List<String> tags,
            @Nullable Integer timeLimitMillis,
            @Nullable String result,
            boolean hasResult,
            List<Attempt> attemptLog) {

        public boolean live() {
            return finishedAt == null;
        }

        /** Whether the job is archived: the archive does not keep a job's own time limit. */
        public boolean archived() {
            return finishedAt != null && !"dead".equals(state);
        }
    }

    /**
     * One attempt of the timeline.
     *
     * @param timeLimitMillis the limit a {@code timed_out} attempt ran past (from its detail); null otherwise
     */
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
            @Nullable String cause,
            @Nullable Long timeLimitMillis) {}

    public Optional<Job> job(long id, boolean withPayload) {
        String content = withPayload ? "jsonb_pretty(payload), jsonb_pretty(headers)" : "NULL::text, NULL::text";
        String sql = String.format(JOB, content, withPayload ? "jsonb_pretty(result)" : "NULL::text");
        return database.call(c -> {
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
                                rs.getString(22),
                                strings(rs.getArray(23)),
                                (Integer) rs.getObject(24),
                                rs.getString(25),
                                rs.getBoolean(26),
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
                                rs.getString(11),
                                (Long) rs.getObject(12)));
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
                    job.tenant(),
                    job.tags(),
                    job.timeLimitMillis(),
                    job.result(),
                    job.hasResult(),
                    List.copyOf(attempts)));
        });
    }
}
