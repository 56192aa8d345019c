package dev.postbox.http;

import dev.postbox.Require;
import dev.postbox.http.internal.HeaderRules;
import dev.postbox.http.signing.WebhookSigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One job's delivery to one endpoint: what {@link HttpDelivery#deliver(DeliveryRequest)} sends. The
 * same request is sent on every attempt; only {@code webhook-timestamp} and the signature change.
 *
 * <p>Immutable; build with {@link #builder()}.
 */
public final class DeliveryRequest {

    /** Headers Postbox sets itself; endpoint headers may not override them (case-insensitive). */
    public static final Set<String> RESERVED_HEADERS = Set.of(
            "content-type",
            "content-length",
            "content-encoding",
            "transfer-encoding",
            "accept-encoding",
            "connection",
            "host",
            "user-agent",
            "idempotency-key",
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "traceparent",
            "tracestate");

    private final String url;
    private final String messageId;
    private final byte[] body;
    private final WebhookSigner signer;
    private final @Nullable String traceparent;
    private final @Nullable String tracestate;
    private final Map<String, String> headers;
    private final @Nullable EndpointTimeouts timeouts;
    private final @Nullable Long sendDeadline;
    private final @Nullable Duration timeBudget;

    private DeliveryRequest(Builder builder) {
        this.url = requireText("url", builder.url);
        this.messageId = requireText("messageId", builder.messageId);
        if (messageId.indexOf('.') >= 0) {
            throw new IllegalArgumentException("messageId may not contain '.', it delimits the signed content");
        }
        this.body = Require.notNull(builder.body, "body");
        this.signer = Require.notNull(builder.signer, "signer");
        this.traceparent = builder.traceparent;
        this.tracestate = builder.traceparent != null ? builder.tracestate : null;
        this.headers = Map.copyOf(builder.headers);
        this.timeouts = builder.timeouts;
        this.sendDeadline = builder.sendDeadline;
        this.timeBudget = builder.timeBudget;
        // Reject characters that headers cannot carry now rather than per attempt, with messages that
        // name the header but never echo its value (OkHttp's own check would print custom values).
        headers.forEach((name, value) -> HeaderRules.check("delivery request", name, value));
        if (traceparent != null) {
            HeaderRules.checkValue("delivery request", "traceparent", traceparent);
        }
        if (tracestate != null) {
            HeaderRules.checkValue("delivery request", "tracestate", tracestate);
        }
        HeaderRules.checkValue("delivery request", "webhook-id", messageId);
    }

    /** A builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The endpoint URL. */
    public String url() {
        return url;
    }

    /** The job's stable key, sent as {@code Idempotency-Key} and {@code webhook-id} on every attempt. */
    public String messageId() {
        return messageId;
    }

    /** A copy of the JSON body bytes. */
    public byte[] body() {
        return body.clone();
    }

    byte[] bodyUnsafe() {
        return body;
    }

    /** The signer holding the endpoint's active secrets. */
    public WebhookSigner signer() {
        return signer;
    }

    /** The W3C {@code traceparent} to propagate, or null. */
    public @Nullable String traceparent() {
        return traceparent;
    }

    /** The W3C {@code tracestate} sent with the {@link #traceparent()}, or null. */
    public @Nullable String tracestate() {
        return tracestate;
    }

    /** Custom endpoint headers. */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * What is left of the job attempt's time limit, or null: no timeout of the call runs past it
     * ({@link EndpointTimeouts#within}).
     */
    public @Nullable Duration timeBudget() {
        return timeBudget;
    }

    /** Per-endpoint timeouts, or null to use the {@link HttpDelivery}'s defaults. */
    public @Nullable EndpointTimeouts timeouts() {
        return timeouts;
    }

    private static String requireText(String name, @Nullable String value) {
        String text = Require.notNull(value, name);
        if (text.isBlank()) {
            throw new IllegalArgumentException(name + " may not be blank");
        }
        return text;
    }

    /**
     * The {@link System#nanoTime()} after which this request must not be sent, or null for none.
     * It is checked when the connection is ready, just before the first byte is written: a request
     * that missed it ends with {@link FailureCause#NOT_SENT} and nothing reaches the endpoint.
     */
    public @Nullable Long sendDeadline() {
        return sendDeadline;
    }

    /** Never prints the body or secrets. */
    @Override
    public String toString() {
        return "DeliveryRequest[messageId=" + messageId + ", body=" + body.length + " bytes, headers="
                + headers.keySet() + "]";
    }

    /** Builder of {@link DeliveryRequest}; {@code build()} validates and names the offending field. */
    public static final class Builder {
        private @Nullable String url;
        private @Nullable String messageId;
        private byte @Nullable [] body;
        private @Nullable WebhookSigner signer;
        private @Nullable String traceparent;
        private @Nullable String tracestate;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private @Nullable EndpointTimeouts timeouts;
        private @Nullable Long sendDeadline;
        private @Nullable Duration timeBudget;

        private Builder() {}

        /** The endpoint URL (http or https). Required. */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /** The job's stable key; may not contain {@code '.'}. Required. */
        public Builder messageId(String messageId) {
            this.messageId = messageId;
            return this;
        }

        /** The JSON body as bytes, sent and signed exactly as given. Required. */
        public Builder body(byte[] body) {
            this.body = Require.notNull(body, "body").clone();
            return this;
        }

        /** The JSON body, encoded as UTF-8. */
        public Builder body(String json) {
            return body(Require.notNull(json, "body").getBytes(StandardCharsets.UTF_8));
        }

        /** The signer with the endpoint's active secrets. Required. */
        public Builder signer(WebhookSigner signer) {
            this.signer = signer;
            return this;
        }

        /** The W3C trace context to propagate; optional. */
        public Builder traceparent(@Nullable String traceparent) {
            this.traceparent = traceparent;
            return this;
        }

        /**
         * The W3C {@code tracestate} (vendor-specific trace data) to send with the {@link
         * #traceparent(String)}; optional, ignored without a traceparent.
         */
        public Builder tracestate(@Nullable String tracestate) {
            this.tracestate = tracestate;
            return this;
        }

        /**
         * Adds a custom endpoint header.
         *
         * @throws IllegalArgumentException if the name is one Postbox sets itself ({@link #RESERVED_HEADERS})
         */
        public Builder header(String name, String value) {
            Require.notNull(name, "header name");
            Require.notNull(value, "header " + name + " value");
            if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException(
                        "headers may not override '" + name + "': Postbox sets it on every attempt");
            }
            headers.put(name, value);
            return this;
        }

        /** Adds custom endpoint headers; see {@link #header(String, String)}. */
        public Builder headers(Map<String, String> headers) {
            Require.notNull(headers, "headers").forEach(this::header);
            return this;
        }

        /**
         * What is left of the job attempt's time limit ({@code Job#timeLeft()}); null (default): no
         * budget. The call's connect, read and whole-call timeouts are cut to it.
         */
        public Builder timeBudget(@Nullable Duration timeBudget) {
            this.timeBudget = timeBudget == null ? null : Require.notNegative(timeBudget, "timeBudget");
            return this;
        }

        /** Per-endpoint timeouts; optional. */
        public Builder timeouts(@Nullable EndpointTimeouts timeouts) {
            this.timeouts = timeouts;
            return this;
        }

        /**
         * The {@link System#nanoTime()} after which the request must not be sent (see {@link
         * DeliveryRequest#sendDeadline()}); optional. A rate-limited delivery sets it from its permit,
         * so that a request held up between its permit and its send (a cold connection, a paused
         * process) cannot reach the endpoint together with the requests of later permits.
         */
        public Builder sendDeadline(@Nullable Long nanoTime) {
            this.sendDeadline = nanoTime;
            return this;
        }

        /** Builds the request. */
        public DeliveryRequest build() {
            return new DeliveryRequest(this);
        }
    }
}
