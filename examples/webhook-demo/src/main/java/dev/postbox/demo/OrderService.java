package dev.postbox.demo;

import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.Enqueue;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders. The order row, its jobs and its webhook commit in one transaction: if the insert
 * fails, none exists; if the transaction commits, every job will run (or be dead-lettered) and the
 * webhook will be delivered, signed, with {@code webhook-id: orders:order-placed-<id>} on every
 * attempt.
 */
@Service
public class OrderService {

    /** The webhook endpoint, registered from postbox.http.endpoints.orders.* at start-up. */
    static final String ENDPOINT = "orders";

    private final JdbcTemplate jdbc;
    private final Webhooks webhooks;

    public OrderService(JdbcTemplate jdbc, Webhooks webhooks) {
        this.jdbc = jdbc;
        this.webhooks = webhooks;
    }

    @Transactional
    @Enqueue(kind = StockHandler.KIND, idempotencyKey = "'reserve-' + #result.id")
    @Enqueue(kind = ErpSyncHandler.KIND, condition = "#result.id % 10 == 0")
    public Order place(NewOrder order) {
        if (order.quantity() <= 0) {
            throw new IllegalArgumentException("quantity must be positive, was " + order.quantity());
        }
        Long id = jdbc.queryForObject(
                "INSERT INTO demo_order (sku, quantity) VALUES (?, ?) RETURNING id",
                Long.class,
                order.sku(),
                order.quantity());
        Order placed = new Order(id, order.sku(), order.quantity());
        // A delivery job in this transaction: sent if and only if the order commits.
        webhooks.send(ENDPOINT, OrderWebhook.placed(placed), "order-placed-" + id);
        return placed;
    }
}
