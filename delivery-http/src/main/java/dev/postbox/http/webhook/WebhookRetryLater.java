package dev.postbox.http.webhook;

import dev.postbox.RetryJobAfter;
import dev.postbox.http.AttemptResult;
import dev.postbox.internal.AttemptDetails;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A failed delivery attempt retried after a chosen delay: the endpoint's {@code Retry-After}, or the
 * endpoint's own retry policy. Carries the attempt's details into the attempt log.
 */
public class WebhookRetryLater extends RetryJobAfter implements AttemptDetails {

    private static final long serialVersionUID = 1L;

    private final @Nullable Integer statusCode;
    private final String detailJson;

    WebhookRetryLater(String message, Duration delay, String endpoint, AttemptResult result) {
        super(message, delay);
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
