/**
 * Relays Postbox jobs to RabbitMQ: {@link dev.postbox.amqp.AmqpRelay} turns a message into a job
 * written in the caller's transaction, and its handler publishes the job with publisher confirms
 * and mandatory routing, the job's stable key as the AMQP {@code message-id}.
 */
@NullMarked
package dev.postbox.amqp;

import org.jspecify.annotations.NullMarked;
