/**
 * Relays Postbox jobs to NATS JetStream: {@link dev.postbox.nats.NatsRelay} turns a message into a
 * job written in the caller's transaction, and its handler publishes the job to a stream with the
 * job's stable key as {@code Nats-Msg-Id}, so the stream's duplicate window drops a republished
 * copy.
 */
@NullMarked
package dev.postbox.nats;

import org.jspecify.annotations.NullMarked;
