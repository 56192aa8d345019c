/** Implementation of the RabbitMQ relay; not an API. */
@NullMarked
package dev.postbox.amqp.internal;

import org.jspecify.annotations.NullMarked;
