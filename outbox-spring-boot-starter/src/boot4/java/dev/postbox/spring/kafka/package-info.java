/**
 * Auto-configuration of the Kafka relay ({@code postbox-delivery-kafka}): {@code postbox.kafka.*}
 * properties, the relay installed into the engine, a health contributor and Micrometer metrics per
 * destination.
 */
@NullMarked
package dev.postbox.spring.kafka;

import org.jspecify.annotations.NullMarked;
