package dev.postbox.http.signing;

import dev.postbox.Require;

/**
 * Thrown by {@link WebhookVerifier} when an incoming webhook must be rejected. The {@link #reason()}
 * says why; the message explains it without echoing secrets or expected signatures.
 */
public final class WebhookVerificationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why a webhook was rejected. */
    public enum Reason {
        /** {@code webhook-id}, {@code webhook-timestamp} or {@code webhook-signature} is absent or blank. */
        MISSING_HEADER,
        /** {@code webhook-timestamp} is not a whole number of Unix seconds. */
        INVALID_TIMESTAMP,
        /** The timestamp is older than the tolerance allows (possible replay). */
        TIMESTAMP_TOO_OLD,
        /** The timestamp is further in the future than the tolerance allows. */
        TIMESTAMP_TOO_NEW,
        /** No {@code v1} signature in the header matches any of the secrets. */
        NO_MATCHING_SIGNATURE
    }

    private final Reason reason;

    /** Creates an exception for {@code reason} with an explaining message. */
    public WebhookVerificationException(Reason reason, String message) {
        super(message);
        this.reason = Require.notNull(reason, "reason");
    }

    /** Why the webhook was rejected. */
    public Reason reason() {
        return reason;
    }
}
