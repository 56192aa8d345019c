package dev.postbox.internal;

import dev.postbox.JsonCodec;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A claimed job's headers from their stored JSON. Postbox writes a JSON object of strings; a row
 * written by other means (plain SQL, another service) may hold something else. Strings are kept,
 * numbers and booleans as their text, and nulls, objects and arrays are left out with a warning
 * that names the job (not the values), so that such a row still reaches its handler instead of
 * failing every claim that returns it.
 */
final class ClaimedHeaders {

    private static final Logger log = LoggerFactory.getLogger(ClaimedHeaders.class);

    private ClaimedHeaders() {}

    static Map<String, String> read(long jobId, @Nullable String json, JsonCodec codec) {
        if (json == null || json.equals("{}")) {
            return Map.of();
        }
        Object parsed = codec.fromJson(json, Object.class);
        if (!(parsed instanceof Map<?, ?> object)) {
            log.warn("Job {}: its headers are not a JSON object; the job runs without them", jobId);
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        int left = 0;
        for (Map.Entry<?, ?> e : object.entrySet()) {
            Object value = e.getValue();
            if (value instanceof String || value instanceof Number || value instanceof Boolean) {
                headers.put(String.valueOf(e.getKey()), String.valueOf(value));
            } else {
                left++;
            }
        }
        if (left > 0) {
            log.warn(
                    "Job {}: {} of its headers are null, objects or arrays, not strings; the job runs without them",
                    jobId,
                    left);
        }
        return headers;
    }
}
