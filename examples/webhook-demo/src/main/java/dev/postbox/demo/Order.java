package dev.postbox.demo;

/** A saved order. */
public record Order(long id, String sku, int quantity) {}
