package dev.postbox.demo;

import dev.postbox.JsonCodec;
import dev.postbox.http.inbox.InboxResult;
import dev.postbox.spring.http.WebhookInboxMvc;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The webhook receiver, standing in for a partner's system. The starter's {@code WebhookInbox}
 * (through {@link WebhookInboxMvc}) verifies the Standard Webhooks signature ({@code
 * postbox.inbox.secrets}) and records the {@code webhook-id} in the same transaction as the effect, so
 * a redelivery is answered 200 without running the effect again.
 *
 * <p>It is unreliable on purpose: for some ids the first delivery gets a 503 (an outage), for others
 * the effect is applied but the answer is a 500 (a lost response), so Postbox retries and the
 * receiver sees the id again and applies nothing twice.
 */
@RestController
class ReceiverController {

    private final WebhookInboxMvc inbox;
    private final JdbcTemplate jdbc;
    private final JsonCodec json;
    private final Set<String> outageSeen = ConcurrentHashMap.newKeySet();

    ReceiverController(WebhookInboxMvc inbox, JdbcTemplate jdbc, JsonCodec json) {
        this.inbox = inbox;
        this.jdbc = jdbc;
        this.json = json;
    }

    /**
     * No {@code @RequestBody byte[]}: Spring would read the whole body, however large, before the
     * inbox's size cap ({@code postbox.inbox.max-body-bytes}) applies. The inbox reads the body from
     * the request itself, at most the cap plus one byte, and answers 413 beyond it.
     */
    @PostMapping("/receiver/orders")
    ResponseEntity<String> receive(HttpServletRequest request) throws IOException {
        String id = request.getHeader("webhook-id");
        int bucket = id == null ? -1 : Math.floorMod(id.hashCode(), 10);
        if (bucket == 0 && outageSeen.add(id)) {
            return ResponseEntity.status(503).body("receiver briefly unavailable");
        }
        InboxResult result = inbox.result(request, message -> {
            // The effect: runs in the inbox transaction, once per webhook-id. applied > 1 would be a duplicate.
            OrderWebhook webhook = json.fromJson(message.bodyText(), OrderWebhook.class);
            jdbc.update(
                    "INSERT INTO demo_receiver_inbox (idempotency_key, order_id) VALUES (?, ?)"
                            + " ON CONFLICT (idempotency_key) DO UPDATE SET applied = demo_receiver_inbox.applied + 1,"
                            + " received = demo_receiver_inbox.received + 1",
                    message.messageId(),
                    webhook.orderId());
        });
        if (result.outcome() == InboxResult.Outcome.DUPLICATE) {
            jdbc.update(
                    "UPDATE demo_receiver_inbox SET received = received + 1 WHERE idempotency_key = ?",
                    result.messageId());
        }
        if (result.outcome() == InboxResult.Outcome.APPLIED && bucket == 1) {
            // Applied, but the answer is lost on the way back: Postbox retries with the same webhook-id.
            return ResponseEntity.status(500).body("applied, but the response was lost");
        }
        return WebhookInboxMvc.toResponse(result);
    }
}
