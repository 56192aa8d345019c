package dev.postbox.chaos;

import static dev.postbox.chaos.Checker.map;
import static dev.postbox.chaos.Checker.one;

import dev.postbox.chaos.fleet.WorkerLogs;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;

/**
 * Hung handlers and the time limit per attempt (docs/guarantees.md, issue 36): the kinds {@link
 * WorkerMain#HUNG} (hangs, honours the interrupt) and {@link WorkerMain#HUNG_DEAF} (hangs, ignores
 * it) hang on their first attempt, each with a {@value WorkerMain#HUNG_TIME_LIMIT} limit.
 *
 * <ul>
 *   <li>{@code hungAttemptsOverrun}: handler runs of the hung kinds ({@code HUNGRUN}, printed by the
 *       handler itself) longer than the limit plus one lease, unless the engine gave that attempt up
 *       in time (its attempt log's {@code timed_out} within the same bound; only for the deaf kind,
 *       whose thread outlives its attempt by design: the other one must come back when interrupted),
 *       or took its lease away (a {@code lease_expired}, {@code unstarted} or {@code stale} attempt),
 *       or its worker was SIGSTOPped during it or less than a lease before it. Must be 0.
 *   <li>{@code duplicateEffectsHung} (a part of {@code duplicateEffects}): effects of hung jobs beyond
 *       the first: a given-up attempt's late write that landed beside its retry's.
 * </ul>
 */
final class HungCheck {

    static final String MARKER = "HUNGRUN ";

    private HungCheck() {}

    /** Loads the workers' {@code HUNGRUN} lines into {@code chaos_hung_run}. */
    static void load(Connection c, WorkerLogs logs) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE chaos_hung_run (worker text NOT NULL, job_id bigint NOT NULL, kind text NOT NULL,"
                    + " attempt int NOT NULL, start_ms bigint NOT NULL, end_ms bigint NOT NULL)");
        }
        StringBuilder rows = new StringBuilder();
        for (WorkerLogs.HungRun h : logs.hungRuns()) {
            rows.append(h.worker())
                    .append('\t')
                    .append(h.jobId())
                    .append('\t')
                    .append(h.kind())
                    .append('\t')
                    .append(h.attempt())
                    .append('\t')
                    .append(h.startMs())
                    .append('\t')
                    .append(h.endMs())
                    .append('\n');
        }
        try {
            c.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn(
                            "COPY chaos_hung_run (worker, job_id, kind, attempt, start_ms, end_ms) FROM STDIN",
                            new StringReader(rows.toString()));
        } catch (IOException e) {
            throw new SQLException("loading the hung handlers' runs failed", e);
        }
    }

    static void check(Statement s, ChaosResult r, long leaseMillis) throws SQLException {
        long bound = WorkerMain.HUNG_TIME_LIMIT_MILLIS + leaseMillis;
        String hungKinds = "('" + WorkerMain.HUNG + "', '" + WorkerMain.HUNG_DEAF + "')";
        r.put(
                "hungIntents",
                map(
                        s,
                        "SELECT kind, count(*) FROM chaos_intent WHERE committed AND kind IN " + hungKinds
                                + " GROUP BY 1 ORDER BY 1"));
        r.put("hungRuns", map(s, "SELECT kind, count(*) FROM chaos_hung_run GROUP BY 1 ORDER BY 1"));
        r.put("hungRunMaxMs", one(s, "SELECT coalesce(max(end_ms - start_ms), 0) FROM chaos_hung_run"));
        r.put("timedOutAttempts", one(s, "SELECT count(*) FROM outbox_attempt WHERE outcome = 'timed_out'"));
        r.put(
                "hungAttemptsOverrun",
                one(
                        s,
                        "SELECT count(*) FROM chaos_hung_run h WHERE h.end_ms - h.start_ms > " + bound
                                + " AND NOT EXISTS (SELECT 1 FROM outbox_attempt o WHERE o.job_id = h.job_id"
                                + "   AND o.attempt = h.attempt AND (o.outcome IN ('lease_expired', 'unstarted', 'stale')"
                                + "   OR (h.kind = '" + WorkerMain.HUNG_DEAF + "' AND o.outcome = 'timed_out'"
                                + "     AND o.duration_ms <= " + bound + ")))"
                                + " AND NOT " + KeyOrderCheck.frozen("h", leaseMillis)));
        r.put(
                "duplicateEffectsHung",
                one(
                        s,
                        "SELECT coalesce(sum(n - 1), 0) FROM (SELECT e.tx, e.seq, count(*) AS n FROM chaos_effect e"
                                + " JOIN chaos_intent i ON i.seq = e.seq AND i.tx = e.tx WHERE i.kind IN " + hungKinds
                                + " GROUP BY 1, 2) g WHERE n > 1"));
    }
}
