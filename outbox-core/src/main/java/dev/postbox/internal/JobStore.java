package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of an attempt's end on {@code outbox_job}: complete (to the archive), retry, dead-letter,
 * and snooze/release (back to the queue, the attempt refunded). Every write presents the claim's
 * fencing token; a stale token matches no row and changes nothing. The claim is {@link
 * ClaimStore}'s, the lease while it runs {@link LeaseStore}'s.
 *
 * <p>A row carries a lease token only while it is running under that claim (every other write
 * clears it), so {@code lease_token = ?} alone identifies the live claim. The writes deliberately
 * do not add {@code state = 'running'}: that predicate matches the partial lease index, and the
 * planner, misled by statistics taken while few rows ran, joined the id/token arrays through it
 * with a nested loop over every running row (4.6 s for a batch of 500 with 20,000 running,
 * against 6 ms through the primary key; see docs/runs/benchmarks-2026-12.md, "History (before 640cb7a)").
 */
public final class JobStore {

    static final String ARCHIVE_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key,"
            + " payload, headers, priority, tenant, tags, state, attempts, max_attempts, last_error, created_at,"
            + " started_at, finished_at";
    /** The dead letter's columns; the job's own time limit follows them, for a replay. */
    static final String DEAD_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key,"
            + " payload, headers, priority, tenant, tags, attempts, max_attempts, last_error, created_at, started_at,"
            + " dead_at, time_limit_ms";
    /** What a finished or dead job takes from its live row, in the order of the lists above. */
    static final String COPY_COLUMNS = "id, queue, kind, endpoint, ordering_key, idempotency_key, fire_key, payload,"
            + " headers, priority, tenant, tags";

    /**
     * Marks the completion statement. The chaos suite's crash points find it by this marker (not
     * by its text), so a rewrite of the statement keeps them armed; keep it at the start.
     */
    static final String FINISH_MARKER = "/* postbox:finish */";

    private static final String FINISH = FINISH_MARKER
            + " WITH c AS (SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::text[])"
            + "   AS c(id, token, duration_ms, result)),"
            + " done AS (DELETE FROM outbox_job j USING c"
            + "   WHERE j.id = c.id AND j.lease_token = c.token"
            + "   RETURNING j.*, c.duration_ms, c.result AS result_json),"
            + " archived AS (INSERT INTO outbox_job_archive (" + ARCHIVE_COLUMNS + ", result)"
            + "   SELECT " + COPY_COLUMNS + ", ?, attempts, max_attempts, last_error, created_at, started_at, now(),"
            + "     result_json::jsonb"
            + "   FROM done),"
            + " logged AS (INSERT INTO outbox_attempt"
            + "   (job_id, attempt, worker, lease_token, started_at, outcome, duration_ms)"
            + "   SELECT id, attempts, lease_owner, lease_token, started_at, 'done', duration_ms FROM done WHERE ?)"
            + " SELECT id FROM done";

    private static final String RETRY = "WITH f AS (UPDATE outbox_job SET state = 'retry',"
            + "   run_at = now() + ?::bigint * interval '1 millisecond', last_error = ?,"
            + "   lease_owner = NULL, lease_token = NULL, lease_until = NULL"
            + "   WHERE id = ? AND lease_token = ?"
            + "   RETURNING id, attempts, started_at),"
            + " logged AS (INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, outcome,"
            + "   error, duration_ms, status_code, detail)"
            + "   SELECT id, attempts, ?, ?, started_at, ?, ?, ?, ?, ?::jsonb FROM f WHERE ?)"
            + " SELECT count(*) FROM f";

    private static final String DEAD = "WITH d AS (DELETE FROM outbox_job"
            + "   WHERE id = ? AND lease_token = ? RETURNING *),"
            + " dl AS (INSERT INTO outbox_dead_letter (" + DEAD_COLUMNS + ", cause)"
            + "   SELECT " + COPY_COLUMNS
            + ", attempts, max_attempts, ?, created_at, started_at, now(), time_limit_ms, ?"
            + "   FROM d),"
            + " logged AS (INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, outcome,"
            + "   error, duration_ms, status_code, detail)"
            + "   SELECT id, attempts, lease_owner, lease_token, started_at, ?, ?, ?, ?, ?::jsonb FROM d WHERE ?)"
            + " SELECT count(*) FROM d";

    /** Puts jobs back and refunds the attempt their claim counted. */
    private static final String SNOOZE = "WITH c AS (SELECT * FROM unnest(?::bigint[], ?::bigint[]) AS c(id, token)),"
            + " r AS (UPDATE outbox_job j"
            + "   SET state = CASE WHEN j.attempts <= 1 THEN 'pending' ELSE 'retry' END,"
            + "     attempts = j.attempts - 1, run_at = now() + ?::bigint * interval '1 millisecond',"
            + "     lease_owner = NULL, lease_token = NULL, lease_until = NULL,"
            + "     last_error = CASE WHEN ? THEN ? ELSE j.last_error END"
            + "   FROM c WHERE j.id = c.id AND j.lease_token = c.token"
            + "   RETURNING j.id, j.attempts, c.token, j.started_at),"
            + " logged AS (INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, outcome, error)"
            + "   SELECT id, attempts + 1, ?, token, started_at, 'released', ? FROM r WHERE ?)"
            + " SELECT id FROM r";

    /** One finished job with its fencing token, handler duration and result (JSON, or null). */
    public record Completion(
            long id,
            long token,
            long durationMillis,
            @Nullable String resultJson) {

        public Completion(long id, long token, long durationMillis) {
            this(id, token, durationMillis, null);
        }
    }

    /**
     * Moves the jobs whose tokens still hold to the archive in state {@code done} or {@code expired};
     * returns the ids that were finished (the others were fenced off).
     */
    public List<Long> finish(Connection c, Collection<Completion> completions, String state, boolean logAttempts)
            throws SQLException {
        List<Long> ids = new ArrayList<>(completions.size());
        List<Long> tokens = new ArrayList<>(completions.size());
        List<Long> durations = new ArrayList<>(completions.size());
        String[] results = new String[completions.size()];
        for (Completion completion : completions) {
            results[ids.size()] = completion.resultJson();
            ids.add(completion.id());
            tokens.add(completion.token());
            durations.add(completion.durationMillis());
        }
        try (PreparedStatement ps = c.prepareStatement(FINISH)) {
            ps.setArray(1, Sql.bigints(c, ids));
            ps.setArray(2, Sql.bigints(c, tokens));
            ps.setArray(3, Sql.bigints(c, durations));
            ps.setArray(4, c.createArrayOf("text", results));
            ps.setString(5, state);
            ps.setBoolean(6, logAttempts);
            List<Long> finished = new ArrayList<>(completions.size());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    finished.add(rs.getLong(1));
                }
            }
            return finished;
        }
    }

    /**
     * What an attempt leaves in the log.
     *
     * @param outcome the logged outcome when it is not the write's own ({@code retry}, {@code dead}):
     *     {@code timed_out} for an attempt given up for its time limit; null for the write's own
     */
    public record AttemptRecord(
            String workerId,
            String error,
            long durationMillis,
            @Nullable Integer statusCode,
            @Nullable String detailJson,
            @Nullable String outcome) {

        public AttemptRecord(
                String workerId,
                String error,
                long durationMillis,
                @Nullable Integer statusCode,
                @Nullable String detailJson) {
            this(workerId, error, durationMillis, statusCode, detailJson, null);
        }

        String outcomeOr(String own) {
            return outcome != null ? outcome : own;
        }
    }

    /** Schedules a retry after {@code delay}; {@code false} when the token was stale. */
    public boolean retry(Connection c, ClaimedJob claimed, Duration delay, AttemptRecord attempt, boolean log)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(RETRY)) {
            ps.setLong(1, delay.toMillis());
            ps.setString(2, Sql.errorText(attempt.error()));
            ps.setLong(3, claimed.id());
            ps.setLong(4, claimed.token());
            ps.setString(5, attempt.workerId());
            ps.setLong(6, claimed.token());
            ps.setString(7, attempt.outcomeOr("retry"));
            bindAttempt(ps, 8, attempt);
            ps.setBoolean(12, log);
            return count(ps) > 0;
        }
    }

    /**
     * Moves the job to the dead letters, with its {@code cause} (a code to find it by, or null);
     * {@code false} when the token was stale.
     */
    public boolean dead(Connection c, ClaimedJob claimed, AttemptRecord attempt, @Nullable String cause, boolean log)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DEAD)) {
            ps.setLong(1, claimed.id());
            ps.setLong(2, claimed.token());
            ps.setString(3, Sql.errorText(attempt.error()));
            ps.setString(4, cause);
            ps.setString(5, attempt.outcomeOr("dead"));
            bindAttempt(ps, 6, attempt);
            ps.setBoolean(10, log);
            return count(ps) > 0;
        }
    }

    private static void bindAttempt(PreparedStatement ps, int i, AttemptRecord attempt) throws SQLException {
        ps.setString(i, Sql.errorText(attempt.error()));
        ps.setLong(i + 1, attempt.durationMillis());
        if (attempt.statusCode() == null) {
            ps.setNull(i + 2, Types.INTEGER);
        } else {
            ps.setInt(i + 2, attempt.statusCode());
        }
        // A receiver's answer may hold NUL, which jsonb cannot store: the outcome must be recorded anyway.
        ps.setString(i + 3, NulCharacters.json(attempt.detailJson()));
    }

    /**
     * Returns jobs to the queue after {@code delay} without charging their attempt (shutdown
     * release, snooze, unknown kind); returns the ids put back. {@code reason} goes to the attempt
     * log when {@code log}; with {@code keepReason} it is also the job's {@code last_error} until it
     * runs again (a snooze says why the job waits), else the job keeps the error it had.
     */
    public List<Long> snooze(
            Connection c,
            Collection<ClaimedJob> jobs,
            Duration delay,
            String workerId,
            String reason,
            boolean keepReason,
            boolean log)
            throws SQLException {
        List<Long> ids = new ArrayList<>(jobs.size());
        List<Long> tokens = new ArrayList<>(jobs.size());
        for (ClaimedJob job : jobs) {
            ids.add(job.id());
            tokens.add(job.token());
        }
        try (PreparedStatement ps = c.prepareStatement(SNOOZE)) {
            ps.setArray(1, Sql.bigints(c, ids));
            ps.setArray(2, Sql.bigints(c, tokens));
            ps.setLong(3, delay.toMillis());
            ps.setBoolean(4, keepReason);
            ps.setString(5, Sql.errorText(reason));
            ps.setString(6, workerId);
            ps.setString(7, Sql.errorText(reason));
            ps.setBoolean(8, log);
            List<Long> released = new ArrayList<>(jobs.size());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    released.add(rs.getLong(1));
                }
            }
            return released;
        }
    }

    private static long count(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
