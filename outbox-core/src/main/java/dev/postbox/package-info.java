/**
 * Postbox core: write jobs in the caller's transaction ({@link dev.postbox.Outbox}), run them with
 * leased, fenced claims ({@link dev.postbox.Postbox}), and inspect or repair them ({@link
 * dev.postbox.PostboxAdmin}). Implementation lives in {@code dev.postbox.internal}.
 */
@NullMarked
package dev.postbox;

import org.jspecify.annotations.NullMarked;
