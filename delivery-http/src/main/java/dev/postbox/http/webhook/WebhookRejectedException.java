package dev.postbox.http.webhook;

import dev.postbox.PermanentJobFailure;
import dev.postbox.http.AttemptResult;
import dev.postbox.internal.AttemptDetails;
import org.jspecify.annotations.Nullable;

/**
 * A delivery that retrying cannot help (4xx, 410 Gone, refused destination): the job is
 * dead-lettered at once. Carries the attempt's details into the attempt log.
 */
public class WebhookRejectedException extends PermanentJobFailure implements AttemptDetails {

    private static final long serialVersionUID = 1L;

    private final @Nullable Integer statusCode;
    private final @Nullable String detailJson;

    WebhookRejectedException(String message, String endpoint, @Nullable AttemptResult result) {
        super(message);
        this.statusCode = result == null ? null : result.statusCode();
        this.detailJson = result == null ? null : DeliveryFailureDetails.json(endpoint, result);
    }

    @Override
    public @Nullable Integer statusCode() {
        return statusCode;
    }

    @Override
    public @Nullable String detailJson() {
        return detailJson;
    }
}
