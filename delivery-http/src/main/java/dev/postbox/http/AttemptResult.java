package dev.postbox.http;

import dev.postbox.Require;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What one delivery attempt produced, for the engine's decision and the attempt log. Never contains
 * the request payload or secrets.
 *
 * @param outcome what the engine should do with the job
 * @param cause why the attempt failed ({@link FailureCause#NONE} on success)
 * @param statusCode the response status, or null when no response was received
 * @param retryAfter the clamped {@code Retry-After} delay (429 and 503 only), or null
 * @param responseHeaders the selected response headers (lower-case names), e.g. {@code location}
 * @param responseBody the response body decoded as UTF-8, cut at the configured cap
 * @param responseBodyTruncated whether the body was longer than the cap
 * @param duration how long the attempt took
 * @param remoteAddress the IP address connected to (or last tried), or null when none was
 * @param error a one-line description of the failure, or null on success
 * @param webhookTimestamp the {@code webhook-timestamp} sent (Unix seconds), or -1 when nothing was sent
 */
public record AttemptResult(
        DeliveryOutcome outcome,
        FailureCause cause,
        @Nullable Integer statusCode,
        @Nullable Duration retryAfter,
        Map<String, String> responseHeaders,
        String responseBody,
        boolean responseBodyTruncated,
        Duration duration,
        @Nullable String remoteAddress,
        @Nullable String error,
        long webhookTimestamp) {

    /** Validates and copies the components. */
    public AttemptResult {
        Require.notNull(outcome, "outcome");
        Require.notNull(cause, "cause");
        responseHeaders = Map.copyOf(Require.notNull(responseHeaders, "responseHeaders"));
        Require.notNull(responseBody, "responseBody");
        Require.notNull(duration, "duration");
    }

    /** {@link #retryAfter()} as an Optional. */
    public Optional<Duration> retryAfterHint() {
        return Optional.ofNullable(retryAfter);
    }

    /** Whether the endpoint answered at all. */
    public boolean hasResponse() {
        return statusCode != null;
    }
}
