/** Implementation of the Postbox starter; not an API: it may change in any release. */
@NullMarked
package dev.postbox.spring.internal;

import org.jspecify.annotations.NullMarked;
