/**
 * Standard Webhooks signatures: {@link dev.postbox.http.signing.WebhookSecret} ({@code whsec_…}),
 * {@link dev.postbox.http.signing.WebhookSigner} for the sending side and {@link
 * dev.postbox.http.signing.WebhookVerifier} for the receiving side (timestamp tolerance, several
 * secrets during rotation).
 */
@NullMarked
package dev.postbox.http.signing;

import org.jspecify.annotations.NullMarked;
