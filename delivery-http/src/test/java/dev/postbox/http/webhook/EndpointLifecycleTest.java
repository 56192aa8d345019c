package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.DeadLetter;
import dev.postbox.DeadLetterFilter;
import dev.postbox.RetryPolicy;
import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EndpointLifecycleTest {

    record Disabled(String endpoint, WebhookListener.DisableCause cause, String reason) {}

    @Test
    void goneDisablesTheEndpointAndEnableReplaysWhatWaited() throws Exception {
        List<Disabled> events = new CopyOnWriteArrayList<>();
        WebhookListener listener = new WebhookListener() {
            @Override
            public void endpointDisabled(String endpoint, DisableCause cause, String reason) {
                events.add(new Disabled(endpoint, cause, reason));
            }
        };
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            AtomicInteger calls = new AtomicInteger();
            receiver.responder =
                    (exchange, body) -> calls.incrementAndGet() == 1 ? Receiver.Reply.status(410) : Receiver.Reply.ok();
            Harness.Node node = h.node(m -> m.listener(listener), c -> c);
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("shop", receiver.url("/shop"))
                            .secret(WebhookSecret.generate())
                            .build());
            h.tx(c -> {
                for (int i = 1; i <= 3; i++) {
                    node.http().webhooks().send(c, "shop", Map.of("n", i), "k" + i);
                }
            });
            node.postbox().runDueJobs();

            Endpoint shop = node.http().endpoints().get("shop").orElseThrow();
            assertThat(shop.state()).isEqualTo(EndpointState.DISABLED);
            assertThat(shop.disabledReason())
                    .hasValueSatisfying(r -> assertThat(r).contains("410"));
            assertThat(shop.disabledAt()).isPresent();
            assertThat(events).singleElement().satisfies(e -> {
                assertThat(e.endpoint()).isEqualTo("shop");
                assertThat(e.cause()).isEqualTo(WebhookListener.DisableCause.GONE);
            });
            assertThat(calls.get()).isEqualTo(1);
            List<DeadLetter> dead = node.postbox().admin().deadLetters(DeadLetterFilter.all(), 10);
            assertThat(dead)
                    .singleElement()
                    .satisfies(
                            d -> assertThat(d.lastError()).contains("HTTP 410").contains("endpoint disabled"));
            // Found by its stored cause, not by its error text.
            assertThat(h.count("SELECT count(*) FROM outbox_dead_letter WHERE endpoint = 'shop'" + " AND cause = '"
                            + EndpointRegistry.DISABLED_CAUSE + "'"))
                    .isOne();
            // The other two are parked: not due for minutes, no attempt spent.
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE endpoint = 'shop' AND attempts = 0"
                            + " AND run_at > now() + interval '5 minutes'"))
                    .isEqualTo(2);
            assertThat(h.count("SELECT status_code FROM outbox_attempt")).isEqualTo(410);

            EnableResult enabled = node.http().endpoints().enable("shop");
            assertThat(enabled).isEqualTo(new EnableResult(true, 2, 1));
            node.postbox().runDueJobs();
            assertThat(calls.get()).isEqualTo(4);
            assertThat(receiver.snapshot())
                    .extracting(Receiver.Arrival::webhookId)
                    .containsExactlyInAnyOrder("shop:k1", "shop:k1", "shop:k2", "shop:k3");
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isZero();
            assertThat(h.count("SELECT count(*) FROM outbox_dead_letter")).isZero();
            assertThat(node.http().endpoints().get("shop").orElseThrow().isEnabled())
                    .isTrue();
        }
    }

    /**
     * Enabling replays the endpoint's dead letters by their stored cause, not by their error text: a
     * dead letter whose error merely mentions the old marker stays, and one of another endpoint with
     * the cause stays too.
     */
    @Test
    void enableReplaysTheDeadLettersStoredWithTheDisabledCauseAndNoOthers() throws Exception {
        try (Harness h = new Harness()) {
            Harness.Node node = h.node();
            for (String name : List.of("shop", "other")) {
                node.http()
                        .endpoints()
                        .register(Endpoint.builder(name, "https://" + name + ".example.com/hooks")
                                .secret(WebhookSecret.generate())
                                .build());
            }
            node.http().endpoints().disable("shop", "maintenance");
            String insert = "INSERT INTO outbox_dead_letter (id, queue, kind, endpoint, payload, priority, attempts,"
                    + " max_attempts, last_error, cause, created_at) VALUES (?, 'default', '"
                    + Webhooks.DELIVERY_KIND
                    + "', ?, '{}'::jsonb, 0, 1, 12, ?, ?, now())";
            h.tx(c -> {
                Object[][] rows = {
                    {9_001L, "shop", "HTTP 410 Gone; endpoint disabled", EndpointRegistry.DISABLED_CAUSE},
                    {9_002L, "shop", "a receiver echoed [postbox:endpoint-disabled] in a 400", null},
                    {9_003L, "other", "HTTP 410 Gone; endpoint disabled", EndpointRegistry.DISABLED_CAUSE},
                };
                for (Object[] row : rows) {
                    try (var ps = c.prepareStatement(insert)) {
                        ps.setLong(1, (Long) row[0]);
                        ps.setString(2, (String) row[1]);
                        ps.setString(3, (String) row[2]);
                        ps.setString(4, (String) row[3]);
                        ps.executeUpdate();
                    }
                }
            });

            EnableResult enabled = node.http().endpoints().enable("shop");

            assertThat(enabled.replayed()).isOne();
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE id = 9001 AND endpoint = 'shop'"))
                    .as("the dead letter with the cause is back in the queue")
                    .isOne();
            assertThat(h.count("SELECT count(*) FROM outbox_dead_letter WHERE id IN (9002, 9003)"))
                    .as("the text-only one and the other endpoint's stay dead")
                    .isEqualTo(2);
        }
    }

    @Test
    void sustainedFailureDisablesWithAnEvent() throws Exception {
        List<Disabled> events = new CopyOnWriteArrayList<>();
        WebhookListener listener = new WebhookListener() {
            @Override
            public void endpointDisabled(String endpoint, DisableCause cause, String reason) {
                events.add(new Disabled(endpoint, cause, reason));
            }
        };
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            receiver.responder = (exchange, body) -> Receiver.Reply.status(500);
            Harness.Node node = h.node(
                    m -> m.listener(listener).sustainedFailure(new SustainedFailurePolicy(3, Duration.ZERO)), c -> c);
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("flaky", receiver.url("/flaky"))
                            .secret(WebhookSecret.generate())
                            .retryPolicy(RetryPolicy.custom()
                                    .base(Duration.ofMinutes(1))
                                    .cap(Duration.ofMinutes(1))
                                    .maxAttempts(5)
                                    .build())
                            .build());
            h.tx(c -> {
                for (int i = 1; i <= 4; i++) {
                    node.http().webhooks().send(c, "flaky", Map.of("n", i), "k" + i);
                }
            });
            node.postbox().runDueJobs();
            Endpoint flaky = node.http().endpoints().get("flaky").orElseThrow();
            assertThat(flaky.state()).isEqualTo(EndpointState.DISABLED);
            assertThat(flaky.consecutiveFailures()).isEqualTo(3);
            assertThat(flaky.disabledReason())
                    .hasValueSatisfying(
                            r -> assertThat(r).startsWith("sustained failure: 3 consecutive failed deliveries"));
            assertThat(events)
                    .singleElement()
                    .extracting(Disabled::cause)
                    .isEqualTo(WebhookListener.DisableCause.SUSTAINED_FAILURE);
            // Three attempts failed (and will retry), the fourth delivery was parked without an attempt.
            assertThat(receiver.count()).isEqualTo(3);
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE attempts = 0"))
                    .isEqualTo(1);
            assertThat(h.count("SELECT count(*) FROM outbox_attempt WHERE status_code = 500"))
                    .isEqualTo(3);
            assertThat(h.count("SELECT count(*) FROM outbox_attempt WHERE detail->>'remoteAddress' = '127.0.0.1'"))
                    .isEqualTo(3);
        }
    }
}
