/** Implementation of the console: controllers, the query store, access control, views. */
@NullMarked
package dev.postbox.console.internal;

import org.jspecify.annotations.NullMarked;
