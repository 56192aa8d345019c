/**
 * Relays Postbox jobs to Kafka: {@link dev.postbox.kafka.KafkaRelay} turns a message into a job
 * written in the caller's transaction, and its batch handler sends claimed jobs together through an
 * idempotent producer ({@code acks=all}), the job's ordering key as the record key and its stable key
 * and trace context as record headers, completing them after the broker's acknowledgement.
 */
@NullMarked
package dev.postbox.kafka;

import org.jspecify.annotations.NullMarked;
