package dev.postbox.chaos;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The harness's own tables, next to the Postbox schema in the run's fresh database. Everything the
 * checker judges by is written here by the producer, the workers' handlers and the receiver, keyed
 * by the producer's own payload fields (transaction and sequence), never by Postbox's ids or keys.
 */
final class ChaosSchema {

    private ChaosSchema() {}

    static void install(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            // The business row, written in the same transaction as the intents.
            s.execute("CREATE TABLE chaos_order (tx bigint PRIMARY KEY, intents int NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            // Every intent the producer tried, written OUTSIDE the business transaction, with its
            // transaction's outcome (true committed, false rolled back, null unknown: decided later
            // by the chaos_order row). seq is unique over the run; tx and seq travel in the payload.
            // tenant: the intent's tenant (null: the default tenant); idem_key: the idempotency key the
            // producer gave (k-<n> counted per tenant, so tenants share keys; i-<seq> for the kinds
            // without tenants). key_version: for an ordered local job or webhook, the version its
            // transaction gave its aggregate's row (chaos_aggregate): the key's commit order, recorded
            // by the application, not by Postbox.
            s.execute("CREATE TABLE chaos_intent (seq bigint PRIMARY KEY, tx bigint NOT NULL, kind text NOT NULL,"
                    + " ordering_key text, committed boolean, enqueued_ms bigint NOT NULL, tenant text,"
                    + " idem_key text, key_version bigint)");
            s.execute("CREATE INDEX ON chaos_intent (tx)");
            s.execute("CREATE INDEX ON chaos_intent (idem_key)");
            // One row per ordering key (the aggregate of a business application): every transaction
            // that enqueues jobs of a key also bumps its version, before or after the enqueue. The row
            // lock orders the key's transactions, so versions follow their commits.
            s.execute("CREATE TABLE chaos_aggregate (tenant text NOT NULL, ordering_key text NOT NULL,"
                    + " version bigint NOT NULL, PRIMARY KEY (tenant, ordering_key))");
            // Every effect: target 'local' (written by a local handler in its completing transaction,
            // no unique constraint, so a second application shows) or the receiver's endpoint. The
            // receiver applies a webhook once per webhook-id, as a keyed receiver does; the checker
            // counts effects per (tx, seq, target) from the payload, so a retry sent with a new id
            // shows as a duplicate. tenant: the tenant the handler saw (the job's) or the delivery carried
            // (the <tenant>/ of its webhook-id), null for the default tenant.
            s.execute("CREATE TABLE chaos_effect (id bigserial PRIMARY KEY, target text NOT NULL, tx bigint,"
                    + " seq bigint, ordering_key text, webhook_id text, worker text, tenant text,"
                    + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            s.execute("CREATE INDEX ON chaos_effect (seq)");
            s.execute("CREATE UNIQUE INDEX chaos_effect_webhook_id ON chaos_effect (webhook_id)"
                    + " WHERE webhook_id IS NOT NULL");
            // Every request the receiver saw (signature verified or not), with its arrival time and the
            // sender's webhook-timestamp (whole seconds, taken when the request was built).
            s.execute("CREATE TABLE chaos_delivery (id bigserial PRIMARY KEY, endpoint text NOT NULL,"
                    + " webhook_id text, tx bigint, seq bigint, fault text NOT NULL, applied boolean NOT NULL,"
                    + " arrival_ms bigint NOT NULL, sent_s bigint, tenant text)");
            s.execute("CREATE INDEX ON chaos_delivery (seq)");
            // Every message a consumer read from the broker destinations after the drain (Brokers): the
            // broker, where it stood (Kafka partition and offset; the queue's or stream's order), the
            // producer's tx and seq from the body, the key a consumer deduplicates by (Kafka's
            // postbox-key header, AMQP message-id, Nats-Msg-Id) and Kafka's record key.
            s.execute("CREATE TABLE chaos_broker_message (id bigserial PRIMARY KEY, broker text NOT NULL,"
                    + " part int NOT NULL, pos bigint NOT NULL, tx bigint, seq bigint, msg_key text,"
                    + " record_key text)");
            s.execute("CREATE INDEX ON chaos_broker_message (seq)");
            // Cron fires as the handler saw them: the fire instant from the job's payload.
            s.execute("CREATE TABLE chaos_cron_fire (id bigserial PRIMARY KEY, fire_at timestamptz NOT NULL,"
                    + " worker text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            // Handler starts per job id, loaded from the workers' START markers when the run is checked.
            s.execute("CREATE TABLE chaos_start (job_id bigint PRIMARY KEY, starts int NOT NULL)");
            // The same per worker incarnation, and when the fleet killed, saw exit or SIGSTOPped each
            // incarnation (the harness's own clock): an attempt charged in an incarnation that printed no
            // start for it is explained only by that incarnation's death or stop right after its start.
            s.execute("CREATE TABLE chaos_worker_start (worker text NOT NULL, job_id bigint NOT NULL,"
                    + " starts int NOT NULL, PRIMARY KEY (job_id, worker))");
            // Every handler run of an ordered job, from the handlers' own KEYRUN markers (wall clock of
            // its entry and exit, one host), loaded when the run is checked: two jobs of one key must
            // never run at the same time.
            s.execute(
                    "CREATE TABLE chaos_key_run (worker text NOT NULL, job_id bigint NOT NULL, tenant text NOT NULL,"
                            + " ordering_key text NOT NULL, seq bigint NOT NULL, start_ms bigint NOT NULL, end_ms bigint NOT NULL)");
            s.execute(
                    "CREATE TABLE chaos_worker_fault (worker text NOT NULL, at_ms bigint NOT NULL, what text NOT NULL)");
        }
    }
}
