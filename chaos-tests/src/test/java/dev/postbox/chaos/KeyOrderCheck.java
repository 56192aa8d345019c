package dev.postbox.chaos;

import static dev.postbox.chaos.Checker.one;

import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.WorkerLogs;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.postgresql.PGConnection;

/**
 * Per-key order (docs/guarantees.md §6), from the application's and the handlers' own records:
 *
 * <ul>
 *   <li>{@code keyHandlerOverlaps}: pairs of handler runs of two different jobs of one ordering key
 *       (and tenant) that intersect in time ({@link KeyRuns}: entry and exit of the handler, printed
 *       by the workers). A run is left out when its worker was SIGSTOPped during it or less than a
 *       lease before it (a job held in a frozen buffer may start after SIGCONT, its lease gone), or the
 *       engine took its lease away (the attempt log's {@code lease_expired}, {@code unstarted} or
 *       {@code stale} for the job in that incarnation): a frozen process cannot be stopped, only
 *       fenced, which the effect counts judge. Must be 0.
 *   <li>{@code commitOrderInversions}: per tenant, key and target, committed intents whose first
 *       effect came after the first effect of an intent later in the key's commit order. The commit
 *       order is the application's: the version each transaction gave its aggregate's row ({@code
 *       key_version}, taken under the row lock, so it follows the commits), then enqueue order
 *       ({@code seq}) within one transaction; Kafka sequences (one producer thread) are judged by
 *       {@link BrokerCheck}. Must be 0.
 * </ul>
 *
 * <p>Reported beside them: {@code commitOrderAgainstSeqOrder}, committed keyed intents that
 * committed after an intent of their key enqueued later (the weather's proof that commit order and
 * enqueue order differ), {@code keyRuns} and {@code keyRunsLeftOut}.
 */
final class KeyOrderCheck {

    private KeyOrderCheck() {}

    /**
     * Loads the workers' {@code KEYRUN} lines into {@code chaos_key_run}, and every SIGSTOP with its
     * SIGCONT ({@code resumed_ms} 0: never resumed) into {@code chaos_worker_stop}.
     */
    static void load(Connection c, WorkerLogs logs, List<Incarnation> incarnations) throws SQLException {
        StringBuilder stops = new StringBuilder();
        for (Incarnation i : incarnations) {
            for (Incarnation.Stop stop : i.stops()) {
                stops.append(i.workerId())
                        .append('\t')
                        .append(stop.stoppedAtMillis())
                        .append('\t')
                        .append(stop.resumedAtMillis())
                        .append('\n');
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE chaos_worker_stop (worker text NOT NULL, stopped_ms bigint NOT NULL,"
                    + " resumed_ms bigint NOT NULL)");
        }
        copy(c, "COPY chaos_worker_stop (worker, stopped_ms, resumed_ms) FROM STDIN", stops);
        StringBuilder rows = new StringBuilder();
        for (WorkerLogs.KeyRun k : logs.keyRuns()) {
            rows.append(k.worker())
                    .append('\t')
                    .append(k.jobId())
                    .append('\t')
                    .append(k.tenant().equals("-") ? "" : k.tenant())
                    .append('\t')
                    .append(k.key())
                    .append('\t')
                    .append(k.seq())
                    .append('\t')
                    .append(k.startMs())
                    .append('\t')
                    .append(k.endMs())
                    .append('\n');
        }
        copy(c, "COPY chaos_key_run (worker, job_id, tenant, ordering_key, seq, start_ms, end_ms) FROM STDIN", rows);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE INDEX ON chaos_key_run (tenant, ordering_key, start_ms)");
        }
    }

    private static void copy(Connection c, String sql, StringBuilder rows) throws SQLException {
        try {
            c.unwrap(PGConnection.class).getCopyAPI().copyIn(sql, new StringReader(rows.toString()));
        } catch (IOException e) {
            throw new SQLException("loading the handlers' runs failed: " + sql, e);
        }
    }

    /**
     * A handler run (alias {@code k}: {@code worker}, {@code start_ms}, {@code end_ms}) in a worker that
     * was frozen during it, or resumed less than {@code leaseMillis} before it began.
     */
    static String frozen(String k, long leaseMillis) {
        return "EXISTS (SELECT 1 FROM chaos_worker_stop ws WHERE ws.worker = " + k + ".worker"
                + " AND ws.stopped_ms <= " + k + ".end_ms AND (ws.resumed_ms = 0 OR ws.resumed_ms + " + leaseMillis
                + " >= " + k + ".start_ms))";
    }

    /** The runs the overlap count judges: every printed run but those of a frozen or fenced holder. */
    private static String judgedRuns(long leaseMillis) {
        return "SELECT k.* FROM chaos_key_run k"
                + " WHERE NOT EXISTS (SELECT 1 FROM outbox_attempt o WHERE o.job_id = k.job_id AND o.worker = k.worker"
                + "   AND o.outcome IN ('lease_expired', 'unstarted', 'stale'))"
                + " AND NOT " + frozen("k", leaseMillis);
    }

    /** {@code leaseMillis}: the workers' visibility timeout. */
    static void check(Statement s, ChaosResult r, long leaseMillis) throws SQLException {
        String judged = judgedRuns(leaseMillis);
        long runs = one(s, "SELECT count(*) FROM chaos_key_run");
        r.put("keyRuns", runs);
        r.put("keyRunsLeftOut", runs - one(s, "SELECT count(*) FROM (" + judged + ") j"));
        r.put(
                "keyHandlerOverlaps",
                one(
                        s,
                        "WITH run AS (" + judged + ") SELECT count(*) FROM run a JOIN run b"
                                + " ON b.tenant = a.tenant AND b.ordering_key = a.ordering_key AND b.job_id > a.job_id"
                                + " AND b.start_ms < a.end_ms AND a.start_ms < b.end_ms"));
        r.put("commitOrderInversions", one(s, inversions()));
        r.put(
                "commitOrderAgainstSeqOrder",
                one(
                        s,
                        "SELECT count(*) FROM (SELECT seq, max(seq) OVER (PARTITION BY coalesce(tenant, ''), ordering_key"
                                + "   ORDER BY key_version, seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before"
                                + "   FROM chaos_intent WHERE committed AND key_version IS NOT NULL) o WHERE before > seq"));
        r.put(
                "orderedKeysChecked",
                one(
                        s,
                        "SELECT count(*) FROM (SELECT DISTINCT coalesce(tenant, ''), ordering_key FROM chaos_intent"
                                + " WHERE committed AND ordering_key IS NOT NULL) k"));
    }

    /**
     * Per tenant, key and target, the intents ranked in the key's commit order ({@code key_version},
     * then {@code seq}; an intent without a version, 0); an intent whose first effect came after one of a
     * higher rank is an inversion.
     */
    private static String inversions() {
        return "WITH first AS (SELECT coalesce(i.tenant, '') AS tenant, i.ordering_key, e.target, i.seq,"
                + "   coalesce(i.key_version, 0) AS version, min(e.id) AS first_id FROM chaos_effect e"
                + "   JOIN chaos_intent i ON i.seq = e.seq AND i.tx = e.tx"
                + "   WHERE i.committed AND i.ordering_key IS NOT NULL GROUP BY 1, 2, 3, 4, 5),"
                + " ranked AS (SELECT first_id, tenant, ordering_key, target, row_number() OVER (PARTITION BY tenant,"
                + "   ordering_key, target ORDER BY version, seq) AS commit_rank FROM first),"
                + " o AS (SELECT commit_rank, max(commit_rank) OVER (PARTITION BY tenant, ordering_key, target"
                + "   ORDER BY first_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM ranked)"
                + " SELECT count(*) FROM o WHERE before > commit_rank";
    }
}
