package dev.postbox.demo;

/** The body of {@code POST /orders}. */
public record NewOrder(String sku, int quantity) {}
