package dev.postbox.http.webhook;

import dev.postbox.JsonCodec;
import dev.postbox.http.AttemptResult;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The attempt-log details of a delivery: status, headers subset, truncated body, duration, resolved IP. */
final class DeliveryFailureDetails {

    private DeliveryFailureDetails() {}

    /**
     * Postbox's own map of strings and numbers, written with the Jackson the class path has (the
     * application's mapper settings have no say in the attempt log's format).
     */
    private static final class Json {
        static final JsonCodec CODEC = JsonCodec.jackson();
    }

    static String json(String endpoint, AttemptResult r) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("endpoint", endpoint);
        d.put("outcome", r.outcome().name());
        d.put("cause", r.cause().name());
        if (r.statusCode() != null) {
            d.put("status", r.statusCode());
        }
        d.put("durationMs", r.duration().toMillis());
        if (r.remoteAddress() != null) {
            d.put("remoteAddress", r.remoteAddress());
        }
        if (r.retryAfter() != null) {
            d.put("retryAfterMs", r.retryAfter().toMillis());
        }
        if (!r.responseHeaders().isEmpty()) {
            d.put("responseHeaders", r.responseHeaders());
        }
        if (!r.responseBody().isEmpty()) {
            d.put("responseBody", r.responseBody());
            d.put("responseBodyTruncated", r.responseBodyTruncated());
        }
        if (r.error() != null) {
            d.put("error", r.error());
        }
        return Json.CODEC.toJson(d);
    }

    static @Nullable Integer status(AttemptResult r) {
        return r.statusCode();
    }
}
