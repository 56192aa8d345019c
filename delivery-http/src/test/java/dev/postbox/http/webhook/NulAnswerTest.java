package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 3: a receiver's answer with NUL characters is still recorded (NUL replaced), so a 4xx
 * is dead-lettered after one attempt instead of being re-sent until the budget ends.
 */
class NulAnswerTest {

    @Test
    void a4xxWhoseBodyHoldsNulIsRecordedAndDeadLetteredOnce() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            receiver.responder = (exchange, body) -> new Receiver.Reply(400, Map.of(), "bad\0request");
            Harness.Node node = h.node();
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("shop", receiver.url("/in"))
                            .secret(WebhookSecret.generate())
                            .build());
            h.tx(c -> node.http().webhooks().send(c, "shop", Map.of("n", 1), "order-1"));
            node.postbox().start();
            await().atMost(Duration.ofSeconds(20)).until(() -> h.count("SELECT count(*) FROM outbox_dead_letter") == 1);
            assertThat(receiver.count()).isOne();
            assertThat(h.count("SELECT count(*) FROM outbox_attempt WHERE status_code = 400 AND outcome = 'dead'"
                            + " AND detail::text LIKE '%bad\uFFFDrequest%'"))
                    .isOne();
        }
    }
}
