package dev.postbox.http.webhook;

import dev.postbox.http.AttemptResult;
import dev.postbox.internal.AttemptDetails;
import org.jspecify.annotations.Nullable;

/**
 * A failed delivery attempt that is retried with the policy's jittered backoff. Carries the
 * attempt's details (status, headers subset, truncated body, duration, resolved address) into the
 * attempt log.
 */
public class WebhookDeliveryException extends RuntimeException implements AttemptDetails {

    private static final long serialVersionUID = 1L;

    private final @Nullable Integer statusCode;
    private final String detailJson;

    WebhookDeliveryException(String message, String endpoint, AttemptResult result) {
        super(message, null, false, false);
        this.statusCode = result.statusCode();
        this.detailJson = DeliveryFailureDetails.json(endpoint, result);
    }

    @Override
    public @Nullable Integer statusCode() {
        return statusCode;
    }

    @Override
    public String detailJson() {
        return detailJson;
    }
}
