package dev.postbox.demo;

import dev.postbox.spring.Enqueue;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders. The order row and its jobs commit in one transaction: if the insert fails, no job
 * exists; if the transaction commits, every job will run (or be dead-lettered).
 */
@Service
public class OrderService {

    private final JdbcTemplate jdbc;

    public OrderService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Transactional
    @Enqueue(kind = StockHandler.KIND, idempotencyKey = "'reserve-' + #result.id")
    @Enqueue(
            kind = WebhookHandler.KIND,
            payload = "T(dev.postbox.demo.OrderWebhook).placed(#result)",
            idempotencyKey = "'order-placed-' + #result.id")
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
        return new Order(id, order.sku(), order.quantity());
    }
}
