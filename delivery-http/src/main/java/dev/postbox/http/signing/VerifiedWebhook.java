package dev.postbox.http.signing;

import java.time.Instant;

/**
 * A webhook whose signature and timestamp were verified.
 *
 * @param messageId the {@code webhook-id}: stable across retries, use it to deduplicate (inbox)
 * @param timestamp the attempt's {@code webhook-timestamp}
 */
public record VerifiedWebhook(String messageId, Instant timestamp) {}
