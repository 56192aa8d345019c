/**
 * Postbox on Spring Boot: auto-configuration ({@link dev.postbox.spring.PostboxAutoConfiguration}),
 * {@code postbox.*} properties ({@link dev.postbox.spring.PostboxProperties}), {@link
 * dev.postbox.spring.Enqueue @Enqueue} to write a job when a method returns, {@link
 * dev.postbox.spring.OutboxEvent @OutboxEvent} to write application events as jobs, and {@link
 * dev.postbox.spring.OutboxHandler @OutboxHandler} to run them. Implementation lives in {@code
 * dev.postbox.spring.internal}; test helpers in {@code dev.postbox.spring.test}.
 */
@NullMarked
package dev.postbox.spring;

import org.jspecify.annotations.NullMarked;
