/**
 * Auto-configuration of the NATS JetStream relay ({@code postbox-delivery-nats}): {@code postbox.nats.*}
 * properties, the relay installed into the engine, a health contributor and Micrometer metrics per
 * destination.
 */
@NullMarked
package dev.postbox.spring.nats;

import org.jspecify.annotations.NullMarked;
