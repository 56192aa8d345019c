/**
 * The receiving side of webhooks: {@link dev.postbox.http.inbox.WebhookInbox} verifies a delivery's
 * signature and applies the receiver's handler at most once per {@code webhook-id}, in one
 * transaction with the handler's writes. Its SQL lives in {@code InboxStore}.
 */
@NullMarked
package dev.postbox.http.inbox;

import org.jspecify.annotations.NullMarked;
