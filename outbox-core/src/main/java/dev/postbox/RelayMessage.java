package dev.postbox;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a broker relay sends for a job, the same for every broker: the job's payload as the body, its
 * stable key (the same on every attempt: what a consumer deduplicates by), its ordering key, and
 * headers carrying both keys and the job's trace context. Each relay maps it onto its broker's
 * message (record key, {@code message-id}, {@code Nats-Msg-Id}, headers).
 */
public final class RelayMessage {

    /** Header with the job's stable key. */
    public static final String KEY_HEADER = "postbox-key";

    /** Header with the job's ordering key, when it has one. */
    public static final String ORDERING_KEY_HEADER = "postbox-ordering-key";

    /** The content type of every body: the job's JSON payload. */
    public static final String CONTENT_TYPE = "application/json";

    /** The trace context headers a job may carry (see {@code docs/tracing.md}), sent under the same names. */
    public static final List<String> TRACE_HEADERS = List.of("traceparent", "tracestate", "baggage");

    private final String key;
    private final Optional<String> orderingKey;
    private final Map<String, String> headers;
    private final byte[] body;

    private RelayMessage(Job job) {
        this.key = job.stableKey();
        this.orderingKey = job.orderingKey();
        Map<String, String> h = new LinkedHashMap<>();
        h.put(KEY_HEADER, key);
        orderingKey.ifPresent(k -> h.put(ORDERING_KEY_HEADER, k));
        for (String name : TRACE_HEADERS) {
            String value = job.headers().get(name);
            if (value != null) {
                h.put(name, value);
            }
        }
        this.headers = Collections.unmodifiableMap(h);
        this.body = job.payloadJson().getBytes(StandardCharsets.UTF_8);
    }

    /** The message of a claimed job. */
    public static RelayMessage of(Job job) {
        return new RelayMessage(Require.notNull(job, "job"));
    }

    /** The job's stable key: its idempotency key, or one generated per job. */
    public String key() {
        return key;
    }

    public Optional<String> orderingKey() {
        return orderingKey;
    }

    /**
     * {@value #KEY_HEADER}, {@value #ORDERING_KEY_HEADER} (when the job has an ordering key) and the
     * job's trace headers, in this order.
     */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * The payload as UTF-8 JSON (as PostgreSQL's {@code jsonb} stored it). The array is this
     * message's own, handed to the broker client as it is: do not change it.
     */
    public byte[] body() {
        return body;
    }
}
