/** Implementation of the NATS JetStream relay; not an API. */
@NullMarked
package dev.postbox.nats.internal;

import org.jspecify.annotations.NullMarked;
