package dev.postbox.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Jepsen total-queue style checker. From the intents the producer tried (and whether their
 * transaction committed), the effects (local table and receiver), the delivery log and the Postbox
 * tables it computes lost, ghosts, duplicate effects, duplicate deliveries, per-key order
 * violations, poison jobs not dead-lettered with exactly their budget, cron fires not exactly once,
 * and jobs not terminal when the drain deadline passed.
 */
final class Checker {

    /** Every effect, the first application of each key, whichever store holds it. */
    private static final String EFFECTS = "SELECT intent_key AS k, count(*) AS n, min(applied_at) AS first_at"
            + " FROM chaos_local_effect GROUP BY intent_key"
            + " UNION ALL SELECT idem_key, count(*), min(applied_at) FROM chaos_receiver_effect GROUP BY idem_key";

    /** Every job Postbox holds, in any state, by idempotency key. */
    private static final String JOBS = "SELECT idempotency_key AS k, 'live' AS where_ FROM outbox_job"
            + " UNION ALL SELECT idempotency_key, 'archive' FROM outbox_job_archive"
            + " UNION ALL SELECT idempotency_key, 'dead' FROM outbox_dead_letter";

    private final DataSource ds;

    Checker(DataSource ds) {
        this.ds = ds;
    }

    ChaosResult check() throws SQLException {
        ChaosResult r = new ChaosResult();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            // Commit outcomes the producer could not observe are decided by the business row.
            long unknown = s.executeUpdate("UPDATE chaos_intent i SET committed ="
                    + " EXISTS (SELECT 1 FROM chaos_order o WHERE o.tx_id = i.tx_id) WHERE committed IS NULL");
            r.put("intentsCommitted", one(s, "SELECT count(*) FROM chaos_intent WHERE committed"));
            r.put("intentsRolledBack", one(s, "SELECT count(*) FROM chaos_intent WHERE NOT committed"));
            r.put("intentsOutcomeResolvedLater", unknown);
            r.put(
                    "businessTransactionsCommitted",
                    one(s, "SELECT count(DISTINCT tx_id) FROM chaos_intent WHERE committed"));
            r.put(
                    "intentsByKind",
                    map(
                            s,
                            "SELECT kind || CASE WHEN ordering_key IS NULL THEN '' ELSE '-ordered' END,"
                                    + " count(*) FROM chaos_intent WHERE committed GROUP BY 1 ORDER BY 1"));
            r.put("effectsApplied", one(s, "SELECT count(DISTINCT k) FROM (" + EFFECTS + ") e"));

            // lost: committed, not applied, not dead-lettered as expected, and no longer live
            r.put(
                    "lost",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE i.committed"
                                    + " AND NOT EXISTS (SELECT 1 FROM (" + EFFECTS + ") e WHERE e.k = i.intent_key)"
                                    + " AND NOT (i.kind = 'poison' AND EXISTS (SELECT 1 FROM outbox_dead_letter d"
                                    + "   WHERE d.idempotency_key = i.intent_key))"
                                    + " AND NOT EXISTS (SELECT 1 FROM outbox_job j WHERE j.idempotency_key = i.intent_key)"));
            r.put(
                    "committedWithoutJob",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE i.committed" + " AND NOT EXISTS (SELECT 1 FROM ("
                                    + JOBS + ") j WHERE j.k = i.intent_key)"));
            // ghosts: rolled back, yet a job, an effect or a delivery exists (or the order row does)
            r.put(
                    "ghosts",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE NOT i.committed AND ("
                                    + " EXISTS (SELECT 1 FROM (" + JOBS + ") j WHERE j.k = i.intent_key)"
                                    + " OR EXISTS (SELECT 1 FROM (" + EFFECTS + ") e WHERE e.k = i.intent_key)"
                                    + " OR EXISTS (SELECT 1 FROM chaos_delivery d WHERE d.idem_key = i.intent_key)"
                                    + " OR EXISTS (SELECT 1 FROM chaos_order o WHERE o.tx_id = i.tx_id))"));
            r.put("duplicateEffects", one(s, "SELECT coalesce(sum(n - 1), 0) FROM (" + EFFECTS + ") e WHERE n > 1"));
            r.put(
                    "duplicateEffectsLocal",
                    one(
                            s,
                            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM chaos_local_effect"
                                    + " GROUP BY intent_key) e WHERE n > 1"));
            r.put(
                    "duplicateEffectsReceiver",
                    one(
                            s,
                            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM chaos_receiver_effect"
                                    + " GROUP BY idem_key) e WHERE n > 1"));
            r.put(
                    "duplicateDeliveries",
                    one(
                            s,
                            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM chaos_delivery"
                                    + " GROUP BY idem_key) d WHERE n > 1"));
            r.put("deliveries", one(s, "SELECT count(*) FROM chaos_delivery"));
            r.put(
                    "orderViolations",
                    orderViolations(s, "chaos_local_effect", "intent_key")
                            + orderViolations(s, "chaos_receiver_effect", "idem_key"));
            r.put(
                    "orderedKeysChecked",
                    one(
                            s,
                            "SELECT count(DISTINCT ordering_key) FROM chaos_intent WHERE committed"
                                    + " AND ordering_key IS NOT NULL"));
            // poison: committed poison jobs must be dead letters with exactly their attempt budget
            r.put("poisonJobs", one(s, "SELECT count(*) FROM chaos_intent WHERE committed AND kind = 'poison'"));
            r.put(
                    "poisonViolations",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE i.committed AND i.kind = 'poison'"
                                    + " AND NOT EXISTS (SELECT 1 FROM outbox_dead_letter d WHERE d.idempotency_key ="
                                    + "   i.intent_key AND d.attempts = " + WorkerMain.POISON_BUDGET
                                    + "   AND d.max_attempts = " + WorkerMain.POISON_BUDGET + ")"));
            r.put(
                    "unexpectedDeadLetters",
                    one(s, "SELECT count(*) FROM outbox_dead_letter WHERE kind <> '" + WorkerMain.POISON + "'"));
            r.put("notTerminal", one(s, "SELECT count(*) FROM outbox_job"));
            // Rate limits have not landed in the engine yet: nothing to violate, reported as 0.
            r.put("rateLimitViolations", 0L);
            cron(s, r);
            r.latency(latency(s));
            r.put("attemptsLogged", one(s, "SELECT count(*) FROM outbox_attempt"));
            r.put(
                    "leaseExpiriesRescued",
                    one(s, "SELECT count(*) FROM outbox_attempt WHERE outcome = 'lease_expired'"));
        }
        return r;
    }

    /** Per ordering key, the first application of each intent must follow the enqueue order. */
    private static long orderViolations(Statement s, String table, String keyColumn) throws SQLException {
        return one(
                s,
                "WITH first AS (SELECT ordering_key, " + keyColumn + ", seq, min(id) AS first_id FROM " + table
                        + "   WHERE ordering_key IS NOT NULL GROUP BY 1, 2, 3),"
                        + " o AS (SELECT seq, max(seq) OVER (PARTITION BY ordering_key ORDER BY first_id"
                        + "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM first)"
                        + " SELECT count(*) FROM o WHERE before > seq");
    }

    /** Every second between the first and the last fire must have exactly one job and one effect. */
    private static void cron(Statement s, ChaosResult r) throws SQLException {
        TreeMap<Instant, long[]> fires = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("SELECT f.fire_key, count(*),"
                + " (SELECT count(*) FROM chaos_local_effect e WHERE e.intent_key = f.fire_key)"
                + " FROM (SELECT fire_key FROM outbox_job WHERE fire_key IS NOT NULL"
                + "   UNION ALL SELECT fire_key FROM outbox_job_archive WHERE fire_key IS NOT NULL"
                + "   UNION ALL SELECT fire_key FROM outbox_dead_letter WHERE fire_key IS NOT NULL) f"
                + " WHERE f.fire_key LIKE '" + WorkerMain.SCHEDULE + "@%' GROUP BY f.fire_key")) {
            while (rs.next()) {
                String key = rs.getString(1);
                Instant at = Instant.parse(key.substring(key.indexOf('@') + 1));
                fires.put(at, new long[] {rs.getLong(2), rs.getLong(3)});
            }
        }
        long misfires = 0;
        long missing = 0;
        if (!fires.isEmpty()) {
            for (Instant t = fires.firstKey(); !t.isAfter(fires.lastKey()); t = t.plus(Duration.ofSeconds(1))) {
                long[] f = fires.get(t);
                if (f == null) {
                    missing++;
                } else if (f[0] != 1 || f[1] != 1) {
                    misfires++;
                }
            }
        }
        r.put("cronFires", (long) fires.size());
        r.put("cronMissingFires", missing);
        r.put("cronMisfires", misfires + missing);
    }

    private static Histogram latency(Statement s) throws SQLException {
        Histogram h = new Histogram(3_600_000L, 3);
        try (ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM e.first_at) * 1000)::bigint - i.enqueued_ms"
                + " FROM chaos_intent i JOIN (" + EFFECTS + ") e ON e.k = i.intent_key WHERE i.committed")) {
            while (rs.next()) {
                h.recordValue(Math.max(0, Math.min(3_600_000L, rs.getLong(1))));
            }
        }
        return h;
    }

    private static long one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static TreeMap<String, Long> map(Statement s, String sql) throws SQLException {
        TreeMap<String, Long> m = new TreeMap<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                m.put(rs.getString(1), rs.getLong(2));
            }
        }
        return m;
    }

    static List<String> failures(ChaosResult r) {
        List<String> f = new ArrayList<>();
        for (String key : ChaosResult.FAILURES) {
            if (r.count(key) != 0) {
                f.add(key + "=" + r.count(key));
            }
        }
        return f;
    }
}
