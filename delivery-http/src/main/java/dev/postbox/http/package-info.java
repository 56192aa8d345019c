/**
 * HTTP delivery of Postbox jobs: one signed POST per attempt, its outcome classified for the engine,
 * behind an SSRF guard.
 *
 * <p>Start with {@link dev.postbox.http.HttpDelivery} (send one attempt), {@link
 * dev.postbox.http.ssrf.SsrfGuard} (validate endpoint URLs at enqueue time) and {@link
 * dev.postbox.http.signing.WebhookVerifier} (the receiving side).
 */
@NullMarked
package dev.postbox.http;

import org.jspecify.annotations.NullMarked;
