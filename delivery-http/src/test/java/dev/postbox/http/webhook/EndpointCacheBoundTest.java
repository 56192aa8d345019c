package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.http.signing.WebhookSecret;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 12 item 15: names that callers try cannot grow the endpoint cache; only registered endpoints are kept. */
class EndpointCacheBoundTest {

    @Test
    void unknownEndpointNamesAreNotCached() {
        try (Harness h = new Harness()) {
            HttpDeliveryModule http = h.node().http();
            http.endpoints()
                    .register(Endpoint.builder("shop", "https://hooks.example.com/in")
                            .secret(WebhookSecret.generate())
                            .build());
            h.tx(c -> http.webhooks().send(c, "shop", Map.of(), "k"));
            for (int i = 0; i < 2000; i++) {
                String name = "guess" + i;
                assertThatThrownBy(() -> http.webhooks().delivery(name, Map.of(), null, Map.of()))
                        .isInstanceOf(UnknownEndpointException.class);
            }
            assertThat(http.endpoints().cachedCount()).isOne();
            // A removed endpoint leaves the cache when it is next looked up.
            http.endpoints().remove("shop");
            assertThat(http.endpoints().cached("shop")).isEmpty();
            assertThat(http.endpoints().cachedCount()).isZero();
        }
    }
}
