package dev.postbox.chaos;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The harness's own tables, next to the Postbox schema in the run's fresh database. */
final class ChaosSchema {

    private ChaosSchema() {}

    static void install(DataSource ds, boolean receiverDedup) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            // The business row written in the same transaction as the intents.
            s.execute("CREATE TABLE chaos_order (tx_id bigint PRIMARY KEY, intents int NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            // Side table written OUTSIDE the business transaction: every intent the producer tried,
            // with the outcome of its transaction (true committed, false rolled back, null unknown).
            // job_key: the Postbox job's idempotency key (webhooks: "<endpoint>:<key>", events:
            // "event:<key>"); intent_key is what effects are matched on.
            s.execute("CREATE TABLE chaos_intent (intent_key text PRIMARY KEY, tx_id bigint NOT NULL,"
                    + " kind text NOT NULL, ordering_key text, seq bigint NOT NULL, committed boolean,"
                    + " enqueued_ms bigint NOT NULL, job_key text NOT NULL)");
            s.execute("CREATE INDEX ON chaos_intent (job_key)");
            // Local effects: deliberately no unique constraint, so a second application is visible.
            s.execute("CREATE TABLE chaos_local_effect (id bigserial PRIMARY KEY, intent_key text NOT NULL,"
                    + " kind text NOT NULL, job_id bigint NOT NULL, attempt int NOT NULL, ordering_key text,"
                    + " seq bigint NOT NULL, worker text NOT NULL,"
                    + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            s.execute("CREATE INDEX ON chaos_local_effect (intent_key)");
            // The receiver's effects: applied once per webhook-id when deduplication is on. effect_key is
            // what the checker counts: the webhook-id of a direct send, "<event>@<endpoint>" for a
            // fan-out delivery (so an event expanded twice to one endpoint shows as a duplicate).
            s.execute("CREATE TABLE chaos_receiver_effect (id bigserial PRIMARY KEY, idem_key text NOT NULL,"
                    + " effect_key text NOT NULL, intent_key text NOT NULL, endpoint text NOT NULL,"
                    + " ordering_key text, seq bigint NOT NULL,"
                    + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            s.execute("CREATE INDEX ON chaos_receiver_effect (effect_key)");
            s.execute("CREATE INDEX ON chaos_receiver_effect (intent_key)");
            if (receiverDedup) {
                s.execute("CREATE UNIQUE INDEX chaos_receiver_effect_key ON chaos_receiver_effect (idem_key)");
            } else {
                s.execute("CREATE INDEX ON chaos_receiver_effect (idem_key)");
            }
            // Every request the receiver saw, with what it did.
            // Every request the receiver saw (signature verified or not), with its arrival time.
            s.execute("CREATE TABLE chaos_delivery (id bigserial PRIMARY KEY, idem_key text,"
                    + " intent_key text, endpoint text NOT NULL, fault text NOT NULL, applied boolean NOT NULL,"
                    + " arrival_ms bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
            s.execute("CREATE INDEX ON chaos_delivery (idem_key)");
            s.execute("CREATE INDEX ON chaos_delivery (intent_key)");
        }
    }
}
