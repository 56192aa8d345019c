package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.postbox.RetryPolicy;
import dev.postbox.http.SecretSlot;
import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 2: values no HTTP header can carry are refused where they enter (registration,
 * enqueue), naming the header and the rule, never echoing the value; a job that still cannot be
 * built is dead-lettered after one attempt with the reason.
 */
class HeaderValidationTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private static Endpoint.Builder endpoint(String url) {
        return endpoint("shop", url);
    }

    private static Endpoint.Builder endpoint(String name, String url) {
        return Endpoint.builder(name, url)
                .secret(WebhookSecret.generate())
                .subscribe("order.created")
                .retryPolicy(RetryPolicy.custom()
                        .base(Duration.ofMillis(10))
                        .cap(Duration.ofMillis(10))
                        .maxAttempts(5)
                        .build());
    }

    @Test
    void endpointHeadersWithCrLfOrNonAsciiAreRefusedAtRegistration() {
        try (Harness h = new Harness()) {
            HttpDeliveryModule http = h.node().http();
            assertThatThrownBy(() -> http.endpoints()
                            .register(endpoint("https://hooks.example.com/in")
                                    .header("Authorization", "Bearer s3cret\r\nX-Injected: 1")
                                    .build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContainingAll("endpoint 'shop'", "header 'Authorization'", "CR/LF", "printable ASCII")
                    .hasMessageNotContaining("s3cret");
            assertThatThrownBy(() -> http.endpoints()
                            .register(endpoint("https://hooks.example.com/in")
                                    .header("X-Tenant", "Zürich")
                                    .build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContainingAll("header 'X-Tenant'", "non-ASCII", "U+00FC")
                    .hasMessageNotContaining("Zürich");
            assertThatThrownBy(() -> http.endpoints()
                            .register(endpoint("https://hooks.example.com/in")
                                    .header("X Tenant", "t1")
                                    .build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("header name");
            assertThat(h.count("SELECT count(*) FROM outbox_endpoint")).isZero();
        }
    }

    @Test
    void eventTypesAndKeysThatCannotBeSentAreRefusedAtEnqueue() {
        try (Harness h = new Harness()) {
            HttpDeliveryModule http = h.node().http();
            http.endpoints().register(endpoint("https://hooks.example.com/in").build());
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "shop", Map.of(), "order-1\r\nX: y")))
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContainingAll("webhook-id", "CR/LF");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "shop", Map.of(), "bestellung-größe")))
                    .rootCause()
                    .hasMessageContainingAll("webhook-id", "non-ASCII");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().publish(c, "order\ncreated", Map.of())))
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContainingAll("eventType", "webhook-event-type", "CR/LF");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().publish(c, "commande.créée", Map.of())))
                    .rootCause()
                    .hasMessageContainingAll("webhook-event-type", "non-ASCII");
            assertThatThrownBy(() ->
                            h.tx(c -> http.webhooks().send("shop", Map.of(), null, Map.of("traceparent", "00-\n"))))
                    .hasMessageContainingAll("traceparent", "CR/LF");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks()
                            .send(
                                    "shop",
                                    Map.of(),
                                    null,
                                    Map.of("traceparent", TRACEPARENT, "tracestate", "v=\r\nX: y"))))
                    .hasMessageContainingAll("tracestate", "CR/LF");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks()
                            .send("shop", Map.of(), null, Map.of("traceparent", TRACEPARENT, "tracestate", "v=ünï"))))
                    .hasMessageContainingAll("tracestate", "non-ASCII")
                    .hasMessageNotContaining("ünï");
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isZero();
        }
    }

    @Test
    void aJobThatStillCannotBeBuiltIsDeadAfterOneAttemptWithTheReason() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            Harness.Node node = h.node();
            HttpDeliveryModule http = node.http();
            http.endpoints().register(endpoint(receiver.url("/in")).build());
            http.endpoints().register(endpoint("shop2", receiver.url("/in2")).build());
            h.tx(c -> http.webhooks().send(c, "shop", Map.of("n", 1), "order-1"));
            h.tx(c -> http.webhooks().send(c, "shop2", Map.of("n", 2), "order-2"));
            // A key and an endpoint header written before validation existed (or behind Postbox's back).
            h.exec(
                    "UPDATE outbox_job SET idempotency_key = E'shop:order-1\\r\\nX-Injected: 1' WHERE endpoint = 'shop'");
            // Sealed for its slot: with keys configured, a plain value in the row would be refused on read.
            h.exec("UPDATE outbox_endpoint SET headers = jsonb_build_object('X-Tenant', '"
                    + Harness.TEST_CIPHER.seal("Zürich", SecretSlot.header("shop2", "X-Tenant"))
                    + "') WHERE name = 'shop2'");
            node.postbox().start();
            await().atMost(Duration.ofSeconds(20)).until(() -> h.count("SELECT count(*) FROM outbox_dead_letter") == 2);
            assertThat(h.count("SELECT max(attempts) FROM outbox_dead_letter")).isOne();
            assertThat(h.count("SELECT count(*) FROM outbox_dead_letter WHERE endpoint = 'shop'"
                            + " AND last_error LIKE '%cannot be sent%webhook-id%CR/LF%'"))
                    .isOne();
            assertThat(h.count("SELECT count(*) FROM outbox_dead_letter WHERE endpoint = 'shop2'"
                            + " AND last_error LIKE '%as stored is invalid%X-Tenant%non-ASCII%'"))
                    .isOne();
            assertThat(receiver.count()).isZero();
        }
    }
}
