package dev.postbox.demo;

import dev.postbox.spring.OutboxHandler;
import org.springframework.stereotype.Component;

/**
 * Syncs every tenth order to a legacy ERP that is always down: each attempt fails, Postbox retries
 * three times with backoff, then the job lands in the dead letters, where an operator can look at
 * it and replay it.
 */
@Component
class ErpSyncHandler {

    static final String KIND = "erp-sync";

    @OutboxHandler(value = KIND, maxAttempts = 3, backoffBase = "50ms", backoffCap = "200ms")
    void sync(Order order) {
        throw new IllegalStateException("ERP unreachable: connection refused (order " + order.id() + ")");
    }
}
