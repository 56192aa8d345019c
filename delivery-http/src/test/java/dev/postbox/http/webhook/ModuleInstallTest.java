package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.Postbox;
import dev.postbox.http.signing.WebhookSecret;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 16: the module plugs in through one hook; it is built before the engine and needs no supplier of it. */
class ModuleInstallTest {

    @Test
    void theModuleIsBuiltFirstAndSendsOnceTheEngineThatAddedItIsBuilt() {
        try (Harness h = new Harness();
                HttpDeliveryModule http = HttpDeliveryModule.builder(h.ds)
                        .secretCipher(Harness.TEST_CIPHER)
                        .build()) {
            // Registering endpoints needs no engine.
            http.endpoints()
                    .register(Endpoint.builder("billing", "https://billing.example.com/hooks")
                            .secret(WebhookSecret.generate())
                            .build());
            assertThatThrownBy(() -> h.tx(c -> http.webhooks().send(c, "billing", Map.of("n", 1), "k1")))
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not installed")
                    .hasMessageContaining("Postbox.builder(dataSource).module(http)");

            Postbox postbox = Postbox.builder(h.ds).module(http).build();

            assertThat(postbox.handlerKinds()).containsExactlyInAnyOrder(Webhooks.DELIVERY_KIND, Webhooks.FAN_OUT_KIND);
            h.tx(c -> http.webhooks().send(c, "billing", Map.of("n", 1), "k1"));
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE endpoint = 'billing'"))
                    .isOne();
        }
    }
}
