/** Implementation of the Postbox engine: not API, may change in any release. */
@NullMarked
package dev.postbox.internal;

import org.jspecify.annotations.NullMarked;
