/** Implementation details of {@code dev.postbox.http}; not a public API, may change without notice. */
@NullMarked
package dev.postbox.http.internal;

import org.jspecify.annotations.NullMarked;
