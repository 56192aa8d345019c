package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.http.LogCapture;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.ssrf.ForbiddenDestinationException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValidationTest {

    @Test
    void registrationRefusesForbiddenDestinationsWithTheUrlAndTheFix() {
        try (Harness h = new Harness()) {
            HttpDeliveryModule http = h.node(
                            m -> m.delivery(
                                    dev.postbox.http.HttpDelivery.builder().build()),
                            c -> c)
                    .http();
            // (OkHttp normalises the IPv4-mapped form to the IPv4 address it names.)
            for (String url : new String[] {
                "http://10.0.0.7/hooks",
                "http://169.254.169.254/latest/meta-data",
                "http://localhost:8080/x",
                "http://[::ffff:127.0.0.1]/x"
            }) {
                String shown = url.contains("::ffff:") ? "http://127.0.0.1" : url.substring(0, url.indexOf('/', 8));
                assertThatThrownBy(() -> http.endpoints()
                                .register(Endpoint.builder("internal", url)
                                        .secret(WebhookSecret.generate())
                                        .build()))
                        .isInstanceOf(ForbiddenDestinationException.class)
                        .hasMessageContaining(shown)
                        .hasMessageContaining("postbox.http.allow-list");
            }
            assertThat(http.endpoints().list()).isEmpty();
            assertThatThrownBy(() -> Endpoint.builder("9bad.name", "https://example.com"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("start with a letter");
            assertThatThrownBy(() ->
                            Endpoint.builder("nosecret", "https://example.com").build())
                    .hasMessageContaining("at least one signing secret");
            Endpoint ok = http.endpoints()
                    .register(Endpoint.builder("public", "https://hooks.example.com/in")
                            .secret(WebhookSecret.generate())
                            .header("X-Tenant", "t1")
                            .build());
            assertThat(ok.toString()).doesNotContain("whsec_");
            assertThat(http.endpoints().get("public").orElseThrow().secrets()).isEqualTo(ok.secrets());
            assertThatThrownBy(() -> http.endpoints()
                            .update(ok.toBuilder().url("http://192.168.1.1/").build()))
                    .isInstanceOf(ForbiddenDestinationException.class);
            // A URL that became forbidden behind the registry's back is refused at enqueue.
            h.exec("UPDATE outbox_endpoint SET url = 'http://127.0.0.1/x' WHERE name = 'public'");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "public", Map.of(), null)))
                    .hasRootCauseInstanceOf(ForbiddenDestinationException.class);
        }
    }

    @Test
    void registrationRefusesUrlsWithCredentialsWithoutEchoingThem() {
        try (Harness h = new Harness()) {
            HttpDeliveryModule http = h.node(m -> m, c -> c).http();
            for (String url : new String[] {
                "https://alice:pa55word@hooks.example.com/in",
                "https://pa55word@hooks.example.com/in",
                "https://alice:pa55word@hooks.example.com/in?token=t0ken"
            }) {
                Endpoint endpoint = Endpoint.builder("creds", url)
                        .secret(WebhookSecret.generate())
                        .build();
                for (java.util.function.Consumer<Endpoint> write : List.<java.util.function.Consumer<Endpoint>>of(
                        http.endpoints()::register, http.endpoints()::put)) {
                    assertThatThrownBy(() -> write.accept(endpoint))
                            .isInstanceOf(ForbiddenDestinationException.class)
                            .hasMessageContaining("https://hooks.example.com/in")
                            .hasMessageContaining("carries credentials")
                            .hasMessageContaining("header")
                            .message()
                            .doesNotContain("pa55word")
                            .doesNotContain("alice")
                            .doesNotContain("t0ken");
                }
            }
            assertThat(http.endpoints().list()).isEmpty();
        }
    }

    @Test
    void anEndpointShowsItsUrlWithoutQueryOrCredentials() {
        try (Harness h = new Harness();
                LogCapture log = LogCapture.of(EndpointRegistry.class)) {
            HttpDeliveryModule http = h.node(m -> m, c -> c).http();
            Endpoint e = http.endpoints()
                    .put(Endpoint.builder("q", "https://hooks.example.com/in?token=t0ken#frag")
                            .secret(WebhookSecret.generate())
                            .build());
            assertThat(e.url()).contains("t0ken");
            assertThat(e.redactedUrl()).isEqualTo("https://hooks.example.com/in?[redacted]");
            assertThat(e.toString())
                    .contains("https://hooks.example.com/in?[redacted]")
                    .doesNotContain("t0ken");
            http.endpoints()
                    .put(e.toBuilder()
                            .url("https://hooks.example.com/in?token=n3w")
                            .build());
            assertThat(log.text())
                    .contains("Registered webhook endpoint")
                    .doesNotContain("t0ken")
                    .doesNotContain("n3w");
        }
    }

    @Test
    void payloadTooLargeAndUnknownEndpointsFailAtEnqueueAndWriteNothing() {
        try (Harness h = new Harness()) {
            HttpDeliveryModule http =
                    h.node(m -> m.maxPayloadBytes(1024), c -> c).http();
            http.endpoints()
                    .register(Endpoint.builder("small", "https://hooks.example.com/in")
                            .secret(WebhookSecret.generate())
                            .build());
            String big = "x".repeat(2000);
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "small", Map.of("blob", big), "k")))
                    .rootCause()
                    .isInstanceOf(PayloadTooLargeException.class)
                    .hasMessageContaining("over the limit of 1024 bytes")
                    .hasMessageContaining("endpoint 'small'");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().publish(c, "big.event", Map.of("blob", big))))
                    .rootCause()
                    .isInstanceOf(PayloadTooLargeException.class);
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "nope", Map.of(), null)))
                    .rootCause()
                    .isInstanceOf(UnknownEndpointException.class)
                    .hasMessageContaining("'nope'");
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "small", Map.of(), "a.b")))
                    .rootCause()
                    .hasMessageContaining("without '.'");
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isZero();
        }
    }
}
