/** Implementation of the Kafka relay; not an API. */
@NullMarked
package dev.postbox.kafka.internal;

import org.jspecify.annotations.NullMarked;
