package dev.postbox.demo;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The webhook receiver, standing in for a partner's system. It deduplicates by {@code
 * Idempotency-Key} in its inbox table, and it is unreliable on purpose: for some keys the first
 * delivery gets a 503 (an outage), for others the effect is applied but the answer is a 500 (a lost
 * response), so the sender retries and the receiver sees the key again and applies nothing twice.
 */
@RestController
class ReceiverController {

    private final JdbcTemplate jdbc;
    private final Set<String> outageSeen = ConcurrentHashMap.newKeySet();

    ReceiverController(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @PostMapping("/receiver/orders")
    @Transactional
    ResponseEntity<String> receive(@RequestHeader("Idempotency-Key") String key, @RequestBody OrderWebhook webhook) {
        int bucket = Math.floorMod(key.hashCode(), 10);
        if (bucket == 0 && outageSeen.add(key)) {
            return ResponseEntity.status(503).body("receiver briefly unavailable");
        }
        Boolean applied = jdbc.queryForObject(
                "INSERT INTO demo_receiver_inbox (idempotency_key, order_id) VALUES (?, ?)"
                        + " ON CONFLICT (idempotency_key) DO UPDATE SET received = demo_receiver_inbox.received + 1"
                        + " RETURNING (xmax = 0)",
                Boolean.class,
                key,
                webhook.orderId());
        if (Boolean.TRUE.equals(applied) && bucket == 1) {
            // Applied, but the answer is lost on the way back: the sender will retry with the same key.
            return ResponseEntity.status(500).body("applied, but the response was lost");
        }
        return ResponseEntity.ok(Boolean.TRUE.equals(applied) ? "applied" : "duplicate ignored");
    }
}
