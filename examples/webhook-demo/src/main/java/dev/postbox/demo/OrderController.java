package dev.postbox.demo;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders} places an order; {@code GET /summary} shows what happened so far. */
@RestController
class OrderController {

    private final OrderService orders;
    private final DemoSummaryQuery summary;

    OrderController(OrderService orders, DemoSummaryQuery summary) {
        this.orders = orders;
        this.summary = summary;
    }

    @PostMapping("/orders")
    @ResponseStatus(HttpStatus.CREATED)
    Order place(@RequestBody NewOrder order) {
        return orders.place(order);
    }

    @GetMapping("/summary")
    DemoSummary summary() {
        return summary.current();
    }
}
