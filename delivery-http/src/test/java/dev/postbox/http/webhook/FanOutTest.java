package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.Job;
import dev.postbox.JsonCodec;
import dev.postbox.http.signing.WebhookSecret;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FanOutTest {

    @Test
    void onePublishReachesTwoThousandSubscribersOnceUnderAGlobalLimit() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            for (int i = 0; i < 2; i++) {
                h.node(m -> m.globalRateLimit(400, 40), c -> c.concurrency(16));
            }
            HttpDeliveryModule http = h.nodes.get(0).http();
            int subscribers = 2000;
            WebhookSecret secret = WebhookSecret.generate();
            for (int i = 0; i < subscribers; i++) {
                http.endpoints()
                        .register(Endpoint.builder(String.format("sub-%04d", i), receiver.url("/sub/" + i))
                                .secret(secret)
                                .subscribe(i % 2 == 0 ? "order.created" : Endpoint.ALL_EVENTS)
                                .build());
            }
            http.endpoints()
                    .register(Endpoint.builder("other", receiver.url("/other"))
                            .secret(secret)
                            .subscribe("order.cancelled")
                            .build());
            long[] rowsAtCommit = new long[2];
            h.tx(c -> {
                http.webhooks().publish(c, "order.created", Map.of("order", 42));
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM outbox_job),"
                                + " (SELECT count(*) FROM outbox_idempotency_key)")) {
                    rs.next();
                    rowsAtCommit[0] = rs.getLong(1);
                    rowsAtCommit[1] = rs.getLong(2);
                }
            });
            assertThat(rowsAtCommit[0])
                    .as("outbox_job rows written by the business transaction")
                    .isEqualTo(1);
            assertThat(rowsAtCommit[1]).isZero();

            h.nodes.forEach(n -> n.postbox().start());
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> receiver.count() >= subscribers);
            // and no more for a second: no duplicate delivery
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> receiver.count() == subscribers);
            List<Receiver.Arrival> arrivals = receiver.snapshot();
            Map<String, Long> perPath =
                    arrivals.stream().collect(Collectors.groupingBy(Receiver.Arrival::path, Collectors.counting()));
            assertThat(arrivals).hasSize(subscribers);
            assertThat(perPath).hasSize(subscribers).doesNotContainKey("/other");
            assertThat(perPath.values()).allMatch(n -> n == 1);
            assertThat(arrivals)
                    .allMatch(a -> "order.created".equals(a.headers().getFirst("webhook-event-type")));
            List<Long> times =
                    arrivals.stream().map(Receiver.Arrival::nanos).sorted().toList();
            int maxWindow = Receiver.maxInWindow(times, 1_000_000_000L);
            double span = (times.get(times.size() - 1) - times.get(0)) / 1e9;
            System.out.printf(
                    "fan-out: 1 publish -> %d deliveries in %.2f s (%.1f/s), max in any 1 s window %d (global limit"
                            + " 400/s burst 40)%n",
                    arrivals.size(), span, (arrivals.size() - 1) / span, maxWindow);
            assertThat(maxWindow).isLessThanOrEqualTo(440 + 20);
            assertThat(h.count("SELECT expanded FROM outbox_fanout")).isEqualTo(subscribers);
            assertThat(h.count("SELECT count(*) FROM outbox_fanout WHERE completed_at IS NOT NULL"))
                    .isEqualTo(1);
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isZero();
        }
    }

    @Test
    void reExpansionAfterACrashCreatesNoDuplicates() throws Exception {
        try (Harness h = new Harness()) {
            Harness.Node node = h.node(m -> m.fanOutBatchSize(7), c -> c);
            HttpDeliveryModule http = node.http();
            for (int i = 0; i < 20; i++) {
                http.endpoints()
                        .register(Endpoint.builder("ep-" + i, "https://hooks.example.com/" + i)
                                .secret(WebhookSecret.generate())
                                .subscribe("ping")
                                .build());
            }
            FanOutHandler handler = (FanOutHandler) http.fanOutRegistration().handler();
            Job event = Job.builder(9_000_000L, Webhooks.FAN_OUT_KIND, "{\"n\":1}", JsonCodec.jackson())
                    .attempt(1, 8)
                    .headers(Map.of(WebhookDeliveryHandler.EVENT_TYPE_JOB_HEADER, "ping"))
                    .build();
            handler.handle(event);
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE kind = 'postbox.webhook'"))
                    .isEqualTo(20);
            // A crash that lost the cursor: the whole expansion runs again, and creates nothing new.
            h.exec("DELETE FROM outbox_fanout");
            handler.handle(event);
            // A crash mid-way: cursor after the first batch.
            h.exec("UPDATE outbox_fanout SET completed_at = NULL, last_endpoint = 'ep-14'");
            handler.handle(event);
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE kind = 'postbox.webhook'"))
                    .isEqualTo(20);
            assertThat(h.count("SELECT count(DISTINCT idempotency_key) FROM outbox_job"
                            + " WHERE idempotency_key LIKE '9000000:ep-%'"))
                    .isEqualTo(20);
        }
    }
}
