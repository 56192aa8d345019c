package dev.postbox.demo;

/** What the receiver is told about a placed order. */
public record OrderWebhook(String event, long orderId, String sku, int quantity) {

    public static OrderWebhook placed(Order order) {
        return new OrderWebhook("order.placed", order.id(), order.sku(), order.quantity());
    }
}
