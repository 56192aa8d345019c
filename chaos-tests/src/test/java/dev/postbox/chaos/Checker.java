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
            + " UNION ALL SELECT effect_key, count(*), min(applied_at) FROM chaos_receiver_effect GROUP BY effect_key";

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

            // lost: committed, not applied (an event: not applied at every subscriber), not
            // dead-lettered as expected, and no longer live
            r.put(
                    "lost",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE i.committed"
                                    + " AND CASE WHEN i.kind = '" + ChaosDriver.KIND_EVENT + "'"
                                    + "   THEN (SELECT count(DISTINCT endpoint) FROM chaos_receiver_effect r"
                                    + "     WHERE r.intent_key = i.intent_key) < " + ChaosDriver.SUBSCRIBERS.size()
                                    + "   ELSE NOT EXISTS (SELECT 1 FROM (" + EFFECTS
                                    + ") e WHERE e.k = i.intent_key) END"
                                    + " AND NOT (i.kind = 'poison' AND EXISTS (SELECT 1 FROM outbox_dead_letter d"
                                    + "   WHERE d.idempotency_key = i.job_key))"
                                    + " AND NOT EXISTS (SELECT 1 FROM outbox_job j WHERE j.idempotency_key = i.job_key)"));
            r.put(
                    "committedWithoutJob",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE i.committed" + " AND NOT EXISTS (SELECT 1 FROM ("
                                    + JOBS + ") j WHERE j.k = i.job_key)"));
            // ghosts: rolled back, yet a job, an effect or a delivery exists (or the order row does)
            r.put(
                    "ghosts",
                    one(
                            s,
                            "SELECT count(*) FROM chaos_intent i WHERE NOT i.committed AND ("
                                    + " EXISTS (SELECT 1 FROM (" + JOBS + ") j WHERE j.k = i.job_key)"
                                    + " OR EXISTS (SELECT 1 FROM chaos_local_effect e WHERE e.intent_key = i.intent_key)"
                                    + " OR EXISTS (SELECT 1 FROM chaos_receiver_effect e WHERE e.intent_key = i.intent_key)"
                                    + " OR EXISTS (SELECT 1 FROM chaos_delivery d WHERE d.intent_key = i.intent_key)"
                                    + " OR EXISTS (SELECT 1 FROM chaos_order o WHERE o.tx_id = i.tx_id))"));
            fanOut(s, r);
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
                                    + " GROUP BY effect_key) e WHERE n > 1"));
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
                            + orderViolations(s, "chaos_receiver_effect", "effect_key"));
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
            rateLimit(s, r);
            cron(s, r);
            r.latency(latency(s));
            r.put("attemptsLogged", one(s, "SELECT count(*) FROM outbox_attempt"));
            r.put(
                    "leaseExpiriesRescued",
                    one(s, "SELECT count(*) FROM outbox_attempt WHERE outcome = 'lease_expired'"));
        }
        return r;
    }

    /**
     * Fan-out: every committed event must have exactly one effect at each subscriber (an event
     * expanded twice to one endpoint would show as two effects with different webhook-ids).
     */
    private static void fanOut(Statement s, ChaosResult r) throws SQLException {
        String events =
                "SELECT intent_key FROM chaos_intent WHERE committed AND kind = '" + ChaosDriver.KIND_EVENT + "'";
        long n = one(s, "SELECT count(*) FROM (" + events + ") ev");
        r.put("fanOutEvents", n);
        r.put("fanOutDeliveriesExpected", n * ChaosDriver.SUBSCRIBERS.size());
        String pairs = "SELECT ev.intent_key, sub.endpoint, (SELECT count(*) FROM chaos_receiver_effect e"
                + "   WHERE e.intent_key = ev.intent_key AND e.endpoint = sub.endpoint) AS n"
                + " FROM (" + events + ") ev CROSS JOIN (VALUES "
                + String.join(
                        ", ",
                        ChaosDriver.SUBSCRIBERS.stream()
                                .map(x -> "('" + x + "')")
                                .toList())
                + ") AS sub(endpoint)";
        r.put("fanOutEffects", one(s, "SELECT count(*) FROM (" + pairs + ") p WHERE n >= 1"));
        r.put("fanOutMissing", one(s, "SELECT count(*) FROM (" + pairs + ") p WHERE n = 0"));
        r.put("fanOutDuplicateEffects", one(s, "SELECT coalesce(sum(n - 1), 0) FROM (" + pairs + ") p WHERE n > 1"));
        r.put(
                "fanOutUnexpectedEndpoints",
                one(
                        s,
                        "SELECT count(*) FROM chaos_receiver_effect e JOIN chaos_intent i ON i.intent_key = e.intent_key"
                                + " WHERE i.kind = '" + ChaosDriver.KIND_EVENT + "' AND e.endpoint NOT LIKE 'sub%'"));
    }

    /**
     * Arrival jitter allowed at the receiver. The database bounds when permits are granted ({@code
     * burst + rate x T} in any interval T, cluster-wide), not when requests arrive: on a loaded 2-core
     * box the time from grant to arrival varies by up to a few hundred ms (scheduling, a worker's
     * HTTP client cold after every restart, GC), which moves requests into the next second. So the
     * bound for a 1-s window at the receiver is {@code burst + rate x (1 s + jitter) + leaseChunk}:
     * the lease chunk (5) covers a worker SIGSTOPped between grant and send that sends its permits
     * after SIGCONT. With rate 10, burst 5: 5 + 10 x 1.5 + 5 = 25. Bursts of 40 requests show a
     * limit that is absent or per process (3 workers x (5 + 10) in the first second) above that
     * bound: with {@code -Dchaos.rateLimitOff=true} (no limit on the endpoint) a run must be invalid.
     */
    static final double RATE_LIMIT_JITTER_SECONDS = 0.5;

    static final int LEASE_CHUNK = 5;

    /**
     * The rate-limited endpoint: in every 1-s window of arrivals at the receiver (every request,
     * whatever the receiver answered: each one took a permit), at most rate + burst + slack.
     * rateLimitViolations counts requests that arrived when the preceding second already held that
     * many.
     */
    private static void rateLimit(Statement s, ChaosResult r) throws SQLException {
        List<Long> arrivals = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT arrival_ms FROM chaos_delivery WHERE endpoint = '"
                + ChaosDriver.RX_LIMITED + "' ORDER BY arrival_ms")) {
            while (rs.next()) {
                arrivals.add(rs.getLong(1));
            }
        }
        long bound = (long) Math.floor(ChaosDriver.LIMITED_RATE * (1 + RATE_LIMIT_JITTER_SECONDS))
                + ChaosDriver.LIMITED_BURST
                + LEASE_CHUNK;
        long max = 0;
        long violations = 0;
        int from = 0;
        for (int to = 0; to < arrivals.size(); to++) {
            while (arrivals.get(to) - arrivals.get(from) >= 1000) {
                from++;
            }
            long inWindow = to - from + 1;
            max = Math.max(max, inWindow);
            if (inWindow > bound) {
                violations++;
            }
        }
        double seconds = arrivals.size() < 2 ? 0 : (arrivals.get(arrivals.size() - 1) - arrivals.get(0)) / 1000.0;
        r.put("rateLimitedRequests", (long) arrivals.size());
        r.put("rateLimitMaxPerSecond", max);
        r.put("rateLimitBound", bound);
        r.put("rateLimitMeanPerSecond", seconds == 0 ? 0.0 : Math.round(arrivals.size() / seconds * 10) / 10.0);
        r.put("rateLimitViolations", violations);
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
