/** Implementation of the cron package: expression syntax, wall-clock mapping. Not a public API. */
@NullMarked
package dev.postbox.cron.internal;

import org.jspecify.annotations.NullMarked;
