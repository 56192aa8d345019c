/**
 * Webhook delivery on the engine: {@link dev.postbox.http.webhook.HttpDeliveryModule} (a {@link
 * dev.postbox.PostboxModule}), its {@link dev.postbox.http.webhook.EndpointRegistry} and the {@link
 * dev.postbox.http.webhook.Webhooks} publisher. The delivery handler answers each attempt as a
 * {@link dev.postbox.JobOutcome}; the endpoint, fan-out, rate-limit and line SQL each sit in their
 * own store class.
 */
@NullMarked
package dev.postbox.http.webhook;

import org.jspecify.annotations.NullMarked;
