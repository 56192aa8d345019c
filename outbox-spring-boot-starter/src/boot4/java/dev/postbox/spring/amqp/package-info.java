/**
 * Auto-configuration of the RabbitMQ relay ({@code postbox-delivery-amqp}): {@code postbox.amqp.*}
 * properties, the relay installed into the engine, a health contributor and Micrometer metrics per
 * destination.
 */
@NullMarked
package dev.postbox.spring.amqp;

import org.jspecify.annotations.NullMarked;
