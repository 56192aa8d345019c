package dev.postbox.console;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import javax.sql.DataSource;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the console tests look at: live jobs in two queues and lanes, archived jobs of the last hour
 * (one with the idempotency key {@code order-4711}), three groups of dead letters, attempts with
 * fencing tokens, a worker, a webhook endpoint with failed deliveries and a schedule fire.
 */
final class ConsoleFixtures {

    /** A credential in the endpoint's query string: no page may show it (issue 12, item 11). */
    static final String QUERY_SECRET = "q-secret-7f3a9c";

    /** Dead letters of kind erp.sync failing with "order NNNNN not found" (ids 9001..9005). */
    static final int ORDER_NOT_FOUND = 5;
    /** Dead letters of kind erp.sync failing with HTTP 503 (ids 9101..9103). */
    static final int HTTP_503 = 3;
    /** Dead letters of kind mail.send (ids 9201..9202). */
    static final int MAIL = 2;

    private ConsoleFixtures() {}

    static JdbcTemplate fill(ApplicationContext context) {
        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
        String live = "INSERT INTO outbox_job (id, queue, kind, payload, priority, state, attempts, run_at, last_error,"
                + " lease_owner, lease_token, lease_until, idempotency_key, ordering_key)"
                + " VALUES (?, ?, ?, '{\"order\": 42, \"email\": \"ann@example.com\"}', ?, ?, ?, now() + ?::interval,"
                + " ?, ?, ?, ?, ?, ?)";
        for (int i = 0; i < 12; i++) {
            jdbc.update(
                    live,
                    100 + i,
                    "default",
                    "erp.sync",
                    0,
                    "pending",
                    0,
                    "-" + (i * 7) + " seconds",
                    null,
                    null,
                    null,
                    null,
                    null,
                    "customer-" + (i % 3));
        }
        for (int i = 0; i < 4; i++) {
            jdbc.update(
                    live,
                    200 + i,
                    "mail",
                    "mail.send",
                    10,
                    "pending",
                    0,
                    "-2 seconds",
                    null,
                    null,
                    null,
                    null,
                    null,
                    null);
        }
        jdbc.update(
                live,
                300,
                "default",
                "erp.sync",
                0,
                "retry",
                2,
                "30 seconds",
                "HTTP 503 from erp",
                null,
                null,
                null,
                null,
                null);
        jdbc.update(
                live,
                301,
                "default",
                "erp.sync",
                0,
                "running",
                1,
                "-1 second",
                null,
                "worker-a",
                77L,
                null,
                null,
                null);
        jdbc.update(live, 302, "mail", "mail.send", -5, "pending", 0, "1 hour", null, null, null, null, null, null);
        jdbc.update("UPDATE outbox_job SET lease_until = now() + interval '30 seconds' WHERE id = 301");

        String archived = "INSERT INTO outbox_job_archive (id, queue, kind, endpoint, idempotency_key, payload,"
                + " priority, state, attempts, max_attempts, created_at, started_at, finished_at)"
                + " VALUES (?, 'default', ?, ?, ?, '{\"order\": 4711}', 0, 'done', ?, 8, now() - ?::interval,"
                + " now() - ?::interval, now() - ?::interval)";
        for (int i = 0; i < 60; i++) {
            String ago = (i % 55) + " minutes";
            jdbc.update(archived, 1000 + i, "erp.sync", null, null, 1, ago, ago, ago);
        }
        jdbc.update(archived, 4711, "orders.placed", "orders", "order-4711", 2, "3 minutes", "2 minutes", "2 minutes");
        jdbc.update("INSERT INTO outbox_idempotency_key (idempotency_key, job_id, expires_at)"
                + " VALUES ('order-4711', 4711, now() + interval '7 days')");
        jdbc.update("INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, finished_at,"
                + " outcome, status_code, error, duration_ms, detail) VALUES (4711, 1, 'worker-a', 501,"
                + " now() - interval '3 minutes', now() - interval '3 minutes' + interval '2 seconds', 'retry', 503,"
                + " 'HTTP 503 Service Unavailable', 2000,"
                + " '{\"endpoint\": \"orders\", \"status\": 503, \"cause\": \"HTTP_STATUS\"}'::jsonb)");
        jdbc.update("INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, finished_at,"
                + " outcome, status_code, duration_ms) VALUES (4711, 2, 'worker-b', 502,"
                + " now() - interval '2 minutes' - interval '140 milliseconds', now() - interval '2 minutes', 'done',"
                + " 200, 140)");

        String dead = "INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                + " last_error, created_at, dead_at) VALUES (?, ?, ?, '{\"order\": 1}', 0, 8, 8, ?,"
                + " now() - interval '2 hours', now() - ?::interval)";
        for (int i = 0; i < ORDER_NOT_FOUND; i++) {
            jdbc.update(
                    dead, 9001 + i, "default", "erp.sync", "order " + (81720 + i) + " not found", (i + 1) + " minutes");
        }
        for (int i = 0; i < HTTP_503; i++) {
            jdbc.update(dead, 9101 + i, "default", "erp.sync", "HTTP 503 from erp", (i + 10) + " minutes");
        }
        for (int i = 0; i < MAIL; i++) {
            jdbc.update(dead, 9201 + i, "mail", "mail.send", "SMTP 550 mailbox unavailable", (i + 20) + " minutes");
        }
        jdbc.update("INSERT INTO outbox_worker (id, host, queues) VALUES ('worker-a', 'app-1', '{default,mail}')");
        jdbc.update("INSERT INTO outbox_worker (id, host, queues, heartbeat_at) VALUES ('worker-old', 'app-0',"
                + " '{default}', now() - interval '2 hours')");
        jdbc.update("INSERT INTO outbox_job_archive (id, queue, kind, fire_key, payload, priority, state, attempts,"
                + " max_attempts, created_at, finished_at) VALUES (5001, 'default', 'report',"
                + " 'nightly-report@2025-01-02T02:00:00Z', '{}', 0, 'done', 1, 8, now() - interval '1 day',"
                + " now() - interval '1 day')");

        context.getBean(EndpointRegistry.class)
                .register(Endpoint.builder("orders", "http://127.0.0.1:8080/hooks/orders?token=" + QUERY_SECRET)
                        .secret(WebhookSecret.generate())
                        .rateLimit(10, 20)
                        .subscribe("order.placed")
                        .description("The order service's webhook")
                        .build());
        return jdbc;
    }
}
