package dev.postbox.http.inbox;

import org.jspecify.annotations.Nullable;

/**
 * What {@link WebhookInbox#receive} did with a webhook.
 *
 * @param outcome applied, duplicate or rejected
 * @param messageId the {@code webhook-id} when present
 * @param reason why it was rejected (null otherwise); safe to log and to answer: names neither secrets,
 *     nor their number, nor the receiver's clock
 */
public record InboxResult(
        Outcome outcome,
        @Nullable String messageId,
        @Nullable String reason) {

    /** The three outcomes. */
    public enum Outcome {
        /** Verified, first time seen: the handler ran and its effect committed with the record. */
        APPLIED,
        /** Verified, already applied before: the handler did not run. */
        DUPLICATE,
        /** Not verified (missing headers, stale timestamp, bad signature): nothing ran. */
        REJECTED,
        /** The body is over the inbox's {@code maxBodyBytes}: not verified, nothing ran. */
        TOO_LARGE
    }

    /**
     * The HTTP status to answer: 204 for applied, 200 for duplicate (the sender must stop retrying),
     * 401 for rejected, 413 for too large.
     */
    public int httpStatus() {
        return switch (outcome) {
            case APPLIED -> 204;
            case DUPLICATE -> 200;
            case REJECTED -> 401;
            case TOO_LARGE -> 413;
        };
    }
}
