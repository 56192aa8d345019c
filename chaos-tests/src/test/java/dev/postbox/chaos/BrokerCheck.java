package dev.postbox.chaos;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * The broker destinations' counts, per broker ({@code kafka}, {@code amqp}, {@code nats}), from what a
 * consumer read from each destination after the drain ({@code chaos_broker_message}) against the
 * intents the producer committed ({@code chaos_intent}, kind = the broker):
 *
 * <ul>
 *   <li>{@code <broker>Lost}: committed intents of which no message was read (must be 0);
 *   <li>{@code <broker>Duplicates}: messages beyond the first per intent, as the consumer reads them
 *       (NATS JetStream must drop republished copies by their {@code Nats-Msg-Id} within the stream's
 *       duplicate window: 0; Kafka and RabbitMQ deliver at least once: reported);
 *   <li>{@code <broker>DuplicatesAfterKeyDedupe}: per intent, the distinct keys its copies carry less
 *       one (a copy without a key counts as a key of its own): what a consumer that deduplicates by the
 *       key would still apply twice; 0 when every redelivery carries the same key (must be 0);
 *   <li>{@code kafkaOrderViolations}: per ordering key, intents whose first record is not in the
 *       partition of the key's first record (a consumer of one partition cannot order them), plus
 *       first records out of {@code seq} order within that partition (must be 0).
 * </ul>
 *
 * Broker messages of rolled-back intents, or matching no intent, are ghosts, and messages at a broker
 * their intent was not for are unexpected targets: {@link Checker} adds them to those counts.
 */
final class BrokerCheck {

    private BrokerCheck() {}

    static void check(Statement s, ChaosResult r) throws SQLException {
        for (String b : Brokers.ALL) {
            String intents =
                    "SELECT i.tx, i.seq, i.ordering_key FROM chaos_intent i WHERE i.committed AND i.kind = '" + b + "'";
            String messages = "SELECT * FROM chaos_broker_message WHERE broker = '" + b + "'";
            r.put(b + "Intents", Checker.one(s, "SELECT count(*) FROM (" + intents + ") i"));
            r.put(b + "Messages", Checker.one(s, "SELECT count(*) FROM (" + messages + ") m"));
            r.put(
                    b + "Lost",
                    Checker.one(
                            s,
                            "SELECT count(*) FROM (" + intents + ") i WHERE NOT EXISTS (SELECT 1 FROM (" + messages
                                    + ") m WHERE m.seq = i.seq AND m.tx = i.tx)"));
            r.put(
                    b + "Duplicates",
                    Checker.one(
                            s,
                            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM (" + messages
                                    + ") m WHERE seq IS NOT NULL GROUP BY tx, seq) g"));
            r.put(
                    b + "DuplicatesAfterKeyDedupe",
                    Checker.one(
                            s,
                            "SELECT coalesce(sum(k - 1), 0) FROM (SELECT count(DISTINCT coalesce(msg_key,"
                                    + " 'no key ' || id)) AS k FROM (" + messages
                                    + ") m WHERE seq IS NOT NULL GROUP BY tx, seq) g"));
        }
        r.put(
                "kafkaOrderedKeys",
                Checker.one(
                        s,
                        "SELECT count(DISTINCT ordering_key) FROM chaos_intent WHERE committed AND kind = '"
                                + Brokers.KAFKA + "' AND ordering_key IS NOT NULL"));
        r.put("kafkaOrderViolations", Checker.one(s, kafkaOrderViolations()));
        r.put(
                "kafkaRecordKeyMismatches",
                Checker.one(
                        s,
                        "SELECT count(*) FROM chaos_broker_message m JOIN chaos_intent i ON i.seq = m.seq"
                                + " AND i.tx = m.tx WHERE m.broker = '" + Brokers.KAFKA + "'"
                                + " AND m.record_key IS DISTINCT FROM i.ordering_key"));
    }

    /**
     * Per ordering key: its home partition is the partition of the first record of its lowest seq;
     * a violation is an intent of the key with no record there, or whose first record there follows a
     * record of a higher seq of the key.
     */
    private static String kafkaOrderViolations() {
        return "WITH m AS (SELECT i.ordering_key AS k, i.seq, b.part, min(b.pos) AS pos"
                + "   FROM chaos_broker_message b JOIN chaos_intent i ON i.seq = b.seq AND i.tx = b.tx"
                + "   WHERE b.broker = '" + Brokers.KAFKA + "' AND i.committed AND i.ordering_key IS NOT NULL"
                + "   GROUP BY 1, 2, 3),"
                + " home AS (SELECT DISTINCT ON (k) k, part FROM m ORDER BY k, seq, pos),"
                + " at_home AS (SELECT m.k, m.seq, m.pos FROM m JOIN home h ON h.k = m.k AND h.part = m.part),"
                + " o AS (SELECT seq, max(seq) OVER (PARTITION BY k ORDER BY pos"
                + "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM at_home)"
                + " SELECT (SELECT count(*) FROM o WHERE before > seq)"
                + " + (SELECT count(*) FROM (SELECT DISTINCT k, seq FROM m) x"
                + "   WHERE NOT EXISTS (SELECT 1 FROM at_home h WHERE h.k = x.k AND h.seq = x.seq))";
    }
}
