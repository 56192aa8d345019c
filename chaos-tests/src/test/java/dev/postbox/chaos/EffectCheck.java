package dev.postbox.chaos;

import static dev.postbox.chaos.Checker.map;
import static dev.postbox.chaos.Checker.one;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * What became of the intents: each committed one's effects where its kind sends them, none lost and
 * none applied twice (lost, duplicates, unexpected targets, fan-out), no trace of a rolled-back one
 * or of one never tried (ghosts), and how long after its enqueue
 * its first effect came; the receiver's requests and duplicate deliveries.
 */
final class EffectCheck {

    /**
     * Where each kind's effect is expected, per tenant ({@code ''}: the default tenant): its target
     * (local table or receiver endpoint). A named tenant's webhooks go to its own endpoint, its events
     * to its own subscribers.
     */
    private static final String TARGETS = "(VALUES ('" + Producer.LOCAL + "', '', 'local'), ('" + WorkerMain.HUNG
            + "', '', 'local'), ('" + WorkerMain.HUNG_DEAF + "', '', 'local'), ('" + Producer.WEBHOOK
            + "', '', '" + ChaosEndpoints.RX + "'), ('" + Producer.LIMITED + "', '', '" + ChaosEndpoints.RX_LIMITED
            + "')"
            + ChaosEndpoints.SUBSCRIBERS.stream()
                    .map(s -> ", ('" + Producer.EVENT + "', '', '" + s + "')")
                    .collect(Collectors.joining())
            + ChaosTenants.NAMED.stream()
                    .map(t -> ", ('" + Producer.LOCAL + "', '" + t + "', 'local'), ('" + Producer.WEBHOOK + "', '" + t
                            + "', '" + ChaosTenants.rx(t) + "')"
                            + ChaosTenants.subscribers(t).stream()
                                    .map(s -> ", ('" + Producer.EVENT + "', '" + t + "', '" + s + "')")
                                    .collect(Collectors.joining()))
                    .collect(Collectors.joining())
            + ") AS t(kind, tenant, target)";

    /** Joins {@link #TARGETS} to the intent {@code i}: its kind's targets in its tenant. */
    private static final String TARGET_OF_INTENT = "t.kind = i.kind AND t.tenant = coalesce(i.tenant, '')";

    private EffectCheck() {}

    /**
     * Decides the commit outcomes the producer could not observe by the business row (before any
     * count of intents reads them).
     */
    static void resolveCommitOutcomes(Statement s, ChaosResult r) throws SQLException {
        r.put("intentsOutcomeResolvedLater", (long) s.executeUpdate("UPDATE chaos_intent i SET committed ="
                + " EXISTS (SELECT 1 FROM chaos_order o WHERE o.tx = i.tx) WHERE committed IS NULL"));
    }

    /** Intents and business transactions, committed and rolled back. */
    static void intents(Statement s, ChaosResult r) throws SQLException {
        r.put("intentsCommitted", one(s, "SELECT count(*) FROM chaos_intent WHERE committed"));
        r.put("intentsRolledBack", one(s, "SELECT count(*) FROM chaos_intent WHERE NOT committed"));
        long committedTx = one(s, "SELECT count(DISTINCT tx) FROM chaos_intent WHERE committed");
        long rolledBackTx = one(s, "SELECT count(DISTINCT tx) FROM chaos_intent WHERE NOT committed");
        r.put("businessTransactionsCommitted", committedTx);
        r.put("businessTransactionsRolledBack", rolledBackTx);
        long total = committedTx + rolledBackTx;
        r.put("rollbackShare", total == 0 ? 0.0 : Math.round(rolledBackTx * 10_000.0 / total) / 10_000.0);
        r.put(
                "intentsByKind",
                map(
                        s,
                        "SELECT kind || CASE WHEN ordering_key IS NULL THEN '' ELSE '-ordered' END, count(*)"
                                + " FROM chaos_intent WHERE committed GROUP BY 1 ORDER BY 1"));
    }

    /**
     * lost: committed intents with an expected target that holds no effect of theirs; duplicates:
     * effects beyond the first per (tx, seq, target); unexpected targets: effects of a committed
     * intent where its kind sends none (an event at a non-subscriber, a local job at the receiver, a
     * broker message of an intent for another broker). Broker intents are counted by {@link BrokerCheck}.
     */
    static void lostAndDuplicated(Statement s, ChaosResult r) throws SQLException {
        String missing = missing();
        r.put("lost", one(s, "SELECT count(DISTINCT seq) FROM (" + missing + ") m"));
        r.put("lostByKind", map(s, "SELECT kind, count(DISTINCT seq) FROM (" + missing + ") m GROUP BY 1 ORDER BY 1"));
        r.put("effectsApplied", one(s, "SELECT count(*) FROM chaos_effect"));
        String groups = "SELECT target, tx, seq, count(*) AS n FROM chaos_effect GROUP BY 1, 2, 3";
        r.put("duplicateEffects", one(s, "SELECT coalesce(sum(n - 1), 0) FROM (" + groups + ") g WHERE n > 1"));
        r.put(
                "duplicateEffectsLocal",
                one(s, "SELECT coalesce(sum(n - 1), 0) FROM (" + groups + ") g WHERE n > 1 AND target = 'local'"));
        r.put(
                "duplicateEffectsReceiver",
                one(s, "SELECT coalesce(sum(n - 1), 0) FROM (" + groups + ") g WHERE n > 1 AND target <> 'local'"));
        String events = "SELECT seq, tx FROM chaos_intent WHERE committed AND kind = '" + Producer.EVENT + "'";
        long eventCount = one(s, "SELECT count(*) FROM (" + events + ") ev");
        r.put("fanOutEvents", eventCount);
        r.put(
                "fanOutDeliveriesExpected",
                one(
                        s,
                        "SELECT count(*) FROM chaos_intent i JOIN " + TARGETS + " ON " + TARGET_OF_INTENT
                                + " WHERE i.committed AND i.kind = '" + Producer.EVENT + "'"));
        r.put(
                "fanOutEffects",
                one(
                        s,
                        "SELECT count(*) FROM chaos_effect e JOIN (" + events
                                + ") ev ON ev.seq = e.seq AND ev.tx = e.tx"));
        r.put(
                "fanOutMissing",
                one(s, "SELECT count(*) FROM (" + missing + ") m WHERE kind = '" + Producer.EVENT + "'"));
        r.put(
                "unexpectedTargets",
                one(
                                s,
                                "SELECT count(*) FROM chaos_effect e JOIN chaos_intent i ON i.seq = e.seq AND i.tx = e.tx"
                                        + " WHERE i.committed AND NOT EXISTS (SELECT 1 FROM " + TARGETS
                                        + " WHERE " + TARGET_OF_INTENT + " AND t.target = e.target)")
                        // a broker message of an intent for another broker, or for no broker at all
                        + one(
                                s,
                                "SELECT count(*) FROM chaos_broker_message b JOIN chaos_intent i ON i.seq = b.seq"
                                        + " AND i.tx = b.tx WHERE i.committed AND i.kind <> b.broker"));
    }

    /** Committed intents (seq, kind, tenant) with an expected target (target) that holds no effect of theirs. */
    static String missing() {
        return "SELECT i.seq, i.kind, i.tenant, t.target FROM chaos_intent i JOIN " + TARGETS + " ON "
                + TARGET_OF_INTENT + " WHERE i.committed AND NOT EXISTS (SELECT 1 FROM chaos_effect e"
                + "   WHERE e.seq = i.seq AND e.tx = i.tx AND e.target = t.target)";
    }

    /**
     * ghosts: rolled-back intents with any trace (an effect, a request at the receiver, a broker
     * message, the order row), plus effects and broker messages that match no intent the producer tried.
     */
    static void ghosts(Statement s, ChaosResult r) throws SQLException {
        long rolledBack = one(
                s,
                "SELECT count(*) FROM chaos_intent i WHERE NOT i.committed AND ("
                        + " EXISTS (SELECT 1 FROM chaos_effect e WHERE e.seq = i.seq AND e.tx = i.tx)"
                        + " OR EXISTS (SELECT 1 FROM chaos_delivery d WHERE d.seq = i.seq AND d.tx = i.tx)"
                        + " OR EXISTS (SELECT 1 FROM chaos_broker_message b WHERE b.seq = i.seq AND b.tx = i.tx)"
                        + " OR EXISTS (SELECT 1 FROM chaos_order o WHERE o.tx = i.tx))");
        long unmatched = one(
                        s,
                        "SELECT count(*) FROM chaos_effect e WHERE NOT EXISTS"
                                + " (SELECT 1 FROM chaos_intent i WHERE i.seq = e.seq AND i.tx = e.tx)")
                + one(
                        s,
                        "SELECT count(*) FROM chaos_broker_message b WHERE NOT EXISTS"
                                + " (SELECT 1 FROM chaos_intent i WHERE i.seq = b.seq AND i.tx = b.tx)");
        r.put("ghosts", rolledBack + unmatched);
        r.put("ghostsRolledBack", rolledBack);
        r.put("ghostsUnmatchedEffects", unmatched);
    }

    /** Enqueue to first effect, per committed intent that has one (ms). */
    static Histogram latency(Statement s) throws SQLException {
        Histogram h = new Histogram(3_600_000L, 3);
        try (ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM e.first_at) * 1000)::bigint - i.enqueued_ms"
                + " FROM chaos_intent i JOIN (SELECT tx, seq, min(applied_at) AS first_at FROM chaos_effect"
                + "   GROUP BY 1, 2) e ON e.seq = i.seq AND e.tx = i.tx WHERE i.committed")) {
            while (rs.next()) {
                h.recordValue(Math.max(0, Math.min(3_600_000L, rs.getLong(1))));
            }
        }
        return h;
    }

    /** Requests at the receiver, and webhook ids it saw more than once. */
    static void deliveries(Statement s, ChaosResult r) throws SQLException {
        r.put("receiverRequests", one(s, "SELECT count(*) FROM chaos_delivery"));
        r.put(
                "duplicateDeliveries",
                one(
                        s,
                        "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM chaos_delivery"
                                + " WHERE webhook_id IS NOT NULL GROUP BY webhook_id) d WHERE n > 1"));
    }
}
