package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxSchema;
import dev.postbox.SchemaInstaller;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.inbox.InboxResult;
import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.testing.StatementRecorder;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 13: webhooks of two installations in two schemas of one database ({@code billing}, {@code
 * shipping}), received by an inbox in a third ({@code receiver}); every connection's search_path is
 * a schema that does not exist, so an unqualified statement of the delivery module, the fan-out, the
 * rate limits or the inbox fails, and the recorder sees it.
 */
class SchemaWebhooksTest {

    @Test
    void twoInstallationsDeliverTheirOwnWebhooksAndTheInboxRecordsThemInItsSchema() throws Exception {
        HikariDataSource database = TestDatabase.createEmpty();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(
                database.getJdbcUrl() + (database.getJdbcUrl().contains("?") ? "&" : "?") + "currentSchema=nowhere");
        config.setMaximumPoolSize(30);
        List<Postbox> engines = new ArrayList<>();
        List<HttpDeliveryModule> modules = new ArrayList<>();
        try (HikariDataSource server = new HikariDataSource(config);
                Receiver receiver = new Receiver()) {
            StatementRecorder recorder = new StatementRecorder(server);
            DataSource billing = PostboxSchema.named("billing").dataSource(recorder);
            DataSource shipping = PostboxSchema.named("shipping").dataSource(recorder);
            DataSource receiving = PostboxSchema.named("receiver").dataSource(recorder);
            for (DataSource ds : List.of(billing, shipping, receiving)) {
                new SchemaInstaller(ds).install();
            }
            recorder.clear();
            JdbcTemplate sql = new JdbcTemplate(server);

            WebhookSecret billingSecret = WebhookSecret.generate();
            WebhookSecret shippingSecret = WebhookSecret.generate();
            WebhookInbox inbox = WebhookInbox.builder(receiving)
                    .secret(billingSecret)
                    .secret(shippingSecret)
                    .build();
            Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
            receiver.responder = (exchange, body) -> {
                String path = exchange.getRequestURI().getPath();
                InboxResult result = inbox.receive(
                        exchange.getRequestHeaders()::getFirst,
                        body,
                        message -> applied.computeIfAbsent(path, p -> new AtomicInteger())
                                .incrementAndGet());
                return Receiver.Reply.status(result.httpStatus());
            };

            HttpDeliveryModule billingHttp = module(billing);
            HttpDeliveryModule shippingHttp = module(shipping);
            modules.add(billingHttp);
            modules.add(shippingHttp);
            Postbox billingBox = engine(billing, billingHttp);
            Postbox shippingBox = engine(shipping, shippingHttp);
            engines.add(billingBox);
            engines.add(shippingBox);
            // One endpoint name in both installations, each with its own URL, secret and rate bucket.
            billingHttp
                    .endpoints()
                    .put(Endpoint.builder("hooks", receiver.url("/billing"))
                            .secret(billingSecret)
                            .subscribe("invoice.paid")
                            .rateLimit(50, 5)
                            .build());
            shippingHttp
                    .endpoints()
                    .put(Endpoint.builder("hooks", receiver.url("/shipping"))
                            .secret(shippingSecret)
                            .subscribe("invoice.paid")
                            .rateLimit(50, 5)
                            .build());
            billingBox.start();
            shippingBox.start();

            // Plain JDBC, on the application's connection as it is (search_path 'nowhere').
            try (Connection c = server.getConnection()) {
                c.setAutoCommit(false);
                billingHttp.webhooks().send(c, "hooks", Map.of("invoice", 1), "invoice-1");
                billingHttp.webhooks().publish(c, "invoice.paid", Map.of("invoice", 1));
                // (a key of its own: the shared inbox would take the same key from both as one webhook)
                shippingHttp.webhooks().send(c, "hooks", Map.of("parcel", 9), "parcel-9");
                c.commit();
            }

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(applied.getOrDefault("/billing", new AtomicInteger()).get())
                        .isEqualTo(2);
                assertThat(applied.getOrDefault("/shipping", new AtomicInteger())
                                .get())
                        .isEqualTo(1);
                assertThat(sql.queryForObject("SELECT count(*) FROM billing.outbox_job", Long.class))
                        .isZero();
            });
            assertThat(receiver.snapshot())
                    .extracting(Receiver.Arrival::status)
                    .as("each delivered once, accepted")
                    .hasSize(3)
                    .allMatch(s -> s >= 200 && s < 300);
            assertThat(sql.queryForObject("SELECT count(*) FROM receiver.postbox_inbox", Long.class))
                    .isEqualTo(3);
            assertThat(sql.queryForObject(
                            "SELECT count(*) FROM billing.outbox_job_archive WHERE state = 'done'", Long.class))
                    .as("the send, the event and its copy")
                    .isEqualTo(3);
            assertThat(sql.queryForObject(
                            "SELECT count(*) FROM shipping.outbox_job_archive WHERE state = 'done'", Long.class))
                    .isEqualTo(1);
            assertThat(sql.queryForObject("SELECT count(*) FROM billing.outbox_fanout", Long.class))
                    .isOne();
            assertThat(sql.queryForObject("SELECT count(*) FROM shipping.outbox_fanout", Long.class))
                    .isZero();
            assertThat(sql.queryForList("SELECT url FROM shipping.outbox_endpoint", String.class))
                    .containsExactly(receiver.url("/shipping"));
            assertThat(billingHttp.endpoints().list())
                    .extracting(Endpoint::url)
                    .containsExactly(receiver.url("/billing"));

            engines.forEach(Postbox::stop);
            engines.clear();
            assertThat(recorder.notFound())
                    .as("statements that failed for want of a schema")
                    .isEmpty();
            assertThat(recorder.unqualified())
                    .as("statements that name a Postbox object without its schema")
                    .isEmpty();
            assertThat(recorder.statements()).anyMatch(s -> s.contains("\"receiver\".postbox_inbox"));
            assertThat(recorder.statements()).anyMatch(s -> s.contains("\"billing\".outbox_rate_bucket"));
        } finally {
            engines.forEach(Postbox::stop);
            modules.forEach(m -> m.delivery().close());
            TestDatabase.drop(database);
        }
    }

    private static HttpDeliveryModule module(DataSource ds) {
        return HttpDeliveryModule.builder(ds)
                .delivery(HttpDelivery.builder()
                        .ssrfPolicy(Harness.loopbackAllowed())
                        .build())
                .secretCipher(Harness.TEST_CIPHER)
                .endpointCacheTtl(Duration.ZERO)
                .build();
    }

    private static Postbox engine(DataSource ds, HttpDeliveryModule http) {
        return Postbox.builder(ds)
                .config(PostboxConfig.custom()
                        .pollInterval(Duration.ofMillis(50))
                        .completionFlushInterval(Duration.ofMillis(2))
                        .heartbeatInterval(Duration.ofMillis(200))
                        .maintenanceInterval(Duration.ofMillis(300))
                        .build())
                .module(http)
                .build();
    }
}
