package dev.postbox.demo;

import dev.postbox.spring.OutboxHandler;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Reserves stock for an order: a transactional handler, so the reservation, the stock update and
 * the job's completion commit together or not at all. A worker that lost its lease cannot commit,
 * so the reservation happens exactly once.
 */
@Component
class StockHandler {

    static final String KIND = "reserve-stock";

    private final JdbcTemplate jdbc;

    StockHandler(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @OutboxHandler(value = KIND, transactional = true)
    void reserve(Order order) {
        jdbc.update(
                "INSERT INTO demo_reservation (order_id, sku, quantity) VALUES (?, ?, ?)",
                order.id(),
                order.sku(),
                order.quantity());
        int updated = jdbc.update(
                "UPDATE demo_stock SET available = available - ? WHERE sku = ? AND available >= ?",
                order.quantity(),
                order.sku(),
                order.quantity());
        if (updated == 0) {
            throw new IllegalStateException("not enough '" + order.sku() + "' in stock for order " + order.id());
        }
    }
}
