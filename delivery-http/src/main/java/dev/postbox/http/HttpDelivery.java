package dev.postbox.http;

import dev.postbox.Require;
import dev.postbox.http.internal.CallTrace;
import dev.postbox.http.internal.CappedBody;
import dev.postbox.http.internal.IoFailures;
import dev.postbox.http.internal.PerCallTimeouts;
import dev.postbox.http.internal.PostboxVersion;
import dev.postbox.http.internal.SendDeadlineCheck;
import dev.postbox.http.internal.SsrfRefusal;
import dev.postbox.http.signing.WebhookVerifier;
import dev.postbox.http.ssrf.ForbiddenDestinationException;
import dev.postbox.http.ssrf.SsrfGuard;
import dev.postbox.http.ssrf.SsrfPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import okhttp3.Call;
import okhttp3.Dns;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one delivery attempt: a signed JSON POST to an endpoint, classified into a {@link
 * DeliveryOutcome}. Retries, backoff and bookkeeping are the engine's: {@link #deliver} makes exactly
 * one request (OkHttp's silent connection retries and redirects are off) and never throws for a
 * failed delivery.
 *
 * <p>Each attempt carries {@code Content-Type: application/json}, {@code Idempotency-Key} and {@code
 * webhook-id} (both the job's stable key), a fresh {@code webhook-timestamp}, {@code
 * webhook-signature} (one per active secret), {@code traceparent} (and {@code tracestate}) when given, the endpoint's custom
 * headers and {@code User-Agent: Postbox/<version>}. The destination passes the {@link SsrfGuard}
 * three times: the URL, the resolved addresses, and the address connected to. The response body is
 * read up to a cap on decompressed bytes.
 *
 * <p>Immutable and thread-safe; share one instance. Payloads and secrets are never logged.
 */
public final class HttpDelivery implements AutoCloseable {

    /** Default cap on the response body kept for the attempt log. */
    public static final int DEFAULT_MAX_RESPONSE_BODY_BYTES = 16 * 1024;

    /** Upper bound of {@link Builder#maxResponseBodyBytes(long)}: 1 MiB is plenty for an attempt log. */
    public static final long MAX_RESPONSE_BODY_BYTES_LIMIT = 1024 * 1024;

    /** Response headers kept in {@link AttemptResult#responseHeaders()} by default. */
    public static final Set<String> DEFAULT_CAPTURED_HEADERS =
            Set.of("content-type", "retry-after", "location", "x-request-id");

    private static final Logger log = LoggerFactory.getLogger(HttpDelivery.class);
    private static final MediaType JSON = MediaType.get("application/json");

    private final OkHttpClient client;
    private final boolean ownsClient;
    private final SsrfGuard guard;
    private final OutcomeClassifier classifier;
    private final RetryAfter retryAfter;
    private final EndpointTimeouts defaultTimeouts;
    private final long maxResponseBodyBytes;
    private final Set<String> capturedHeaders;
    private final Clock clock;
    private final String userAgent;

    private HttpDelivery(Builder builder) {
        this.guard = builder.guard;
        this.classifier = builder.classifier;
        this.clock = builder.clock;
        this.retryAfter = builder.retryAfter != null
                ? builder.retryAfter
                : RetryAfter.of(RetryAfter.DEFAULT_MIN, RetryAfter.DEFAULT_MAX, clock);
        this.defaultTimeouts = builder.defaultTimeouts;
        this.maxResponseBodyBytes = builder.maxResponseBodyBytes;
        this.capturedHeaders = Set.copyOf(builder.capturedHeaders);
        this.userAgent = "Postbox/" + PostboxVersion.get();
        OkHttpClient base = builder.baseClient != null ? builder.baseClient : new OkHttpClient();
        this.ownsClient = builder.baseClient == null;
        this.client = guard.configure(base.newBuilder(), builder.dns)
                .addInterceptor(new PerCallTimeouts())
                .addNetworkInterceptor(new SendDeadlineCheck())
                .eventListenerFactory(CallTrace.listenerFactory())
                .retryOnConnectionFailure(false)
                .callTimeout(Duration.ZERO)
                .build();
    }

    /** A builder with the defaults: no allow-list, default classification and timeouts. */
    public static Builder builder() {
        return new Builder();
    }

    /** The SSRF guard in force; use it to {@linkplain SsrfGuard#validateUrl validate URLs} at enqueue time. */
    public SsrfGuard guard() {
        return guard;
    }

    /**
     * Sends one attempt. Never throws for a delivery failure: every failure is an {@link
     * AttemptResult} with an outcome.
     */
    public AttemptResult deliver(DeliveryRequest request) {
        Require.notNull(request, "request");
        long started = System.nanoTime();
        HttpUrl url = HttpUrl.parse(request.url().strip());
        if (url == null) {
            return failure(
                    DeliveryOutcome.DEAD, FailureCause.INVALID_REQUEST, "not a valid http(s) URL", started, null, -1);
        }
        try {
            guard.validateUrl(url.toString());
        } catch (ForbiddenDestinationException e) {
            return failure(DeliveryOutcome.DEAD, FailureCause.FORBIDDEN_DESTINATION, e.getMessage(), started, null, -1);
        }
        long timestamp = clock.instant().getEpochSecond();
        CallTrace trace = new CallTrace();
        EndpointTimeouts timeouts = request.timeouts() != null ? request.timeouts() : defaultTimeouts;
        Duration budget = request.timeBudget();
        if (budget != null) {
            timeouts = timeouts.within(budget); // never past the job attempt's time limit
        }
        Call call;
        try {
            call = client.newCall(httpRequest(request, url, timestamp, trace, timeouts));
        } catch (IllegalArgumentException e) {
            return failure(
                    DeliveryOutcome.DEAD,
                    FailureCause.INVALID_REQUEST,
                    IoFailures.describe(e),
                    started,
                    null,
                    timestamp);
        }
        call.timeout().timeout(timeouts.callTimeout().toMillis(), TimeUnit.MILLISECONDS);
        try (Response response = call.execute()) {
            return fromResponse(response, started, trace, timestamp);
        } catch (IOException e) {
            return fromFailure(e, started, trace, timestamp);
        }
    }

    private Request httpRequest(
            DeliveryRequest request, HttpUrl url, long timestamp, CallTrace trace, EndpointTimeouts timeouts) {
        byte[] body = request.bodyUnsafe();
        Request.Builder http = new Request.Builder()
                .url(url)
                .post(RequestBody.create(body, JSON))
                .tag(CallTrace.class, trace)
                .tag(EndpointTimeouts.class, timeouts);
        if (request.sendDeadline() != null) {
            http.tag(SendDeadlineCheck.Deadline.class, new SendDeadlineCheck.Deadline(request.sendDeadline()));
        }
        request.headers().forEach(http::header);
        http.header("User-Agent", userAgent)
                .header("Idempotency-Key", request.messageId())
                .header(WebhookVerifier.ID_HEADER, request.messageId())
                .header(WebhookVerifier.TIMESTAMP_HEADER, Long.toString(timestamp))
                .header(WebhookVerifier.SIGNATURE_HEADER, request.signer().sign(request.messageId(), timestamp, body));
        if (request.traceparent() != null) {
            http.header("traceparent", request.traceparent());
        }
        if (request.tracestate() != null) {
            http.header("tracestate", request.tracestate());
        }
        return http.build();
    }

    private AttemptResult fromResponse(Response response, long started, CallTrace trace, long timestamp) {
        int status = response.code();
        DeliveryOutcome outcome = classifier.classify(status);
        FailureCause cause = classifier.causeOf(status);
        Duration retryDelay = classifier.honoursRetryAfter(status)
                ? retryAfter.parse(response.header("Retry-After")).orElse(null)
                : null;
        CappedBody body = CappedBody.read(response.body().source(), maxResponseBodyBytes);
        String error = null;
        if (!outcome.isSuccess()) {
            error = "HTTP " + status + (cause == FailureCause.REDIRECT ? " redirect (not followed)" : "");
        }
        if (body.error() != null) {
            String readFailure = "response body read failed: " + IoFailures.describe(body.error());
            error = error == null ? readFailure : error + "; " + readFailure;
        }
        AttemptResult result = new AttemptResult(
                outcome,
                cause,
                status,
                retryDelay,
                capturedHeaders(response),
                body.text(),
                body.truncated(),
                elapsed(started),
                text(trace.remoteAddress()),
                error,
                timestamp);
        log.debug("Delivery to {} answered {}: {}", response.request().url().host(), status, outcome);
        return result;
    }

    private AttemptResult fromFailure(IOException failure, long started, CallTrace trace, long timestamp) {
        if (failure instanceof SendDeadlineCheck.DeadlinePassed) {
            return failure(DeliveryOutcome.RETRY, FailureCause.NOT_SENT, failure.getMessage(), started, null, -1);
        }
        Optional<SsrfRefusal> refusal = IoFailures.ssrfRefusal(failure);
        if (refusal.isPresent()) {
            String reason = "destination refused by the SSRF guard: "
                    + refusal.get().verdict().reason() + "; add it to " + SsrfGuard.ALLOW_LIST_PROPERTY
                    + " if it is intentionally internal";
            return failure(
                    DeliveryOutcome.DEAD,
                    FailureCause.FORBIDDEN_DESTINATION,
                    reason,
                    started,
                    refusal.get().verdict().address(),
                    timestamp);
        }
        FailureCause cause = IoFailures.isTimeout(failure) ? FailureCause.TIMEOUT : FailureCause.CONNECTION;
        log.debug(
                "Delivery attempt failed with {}: {}", cause, failure.getClass().getSimpleName());
        return failure(
                DeliveryOutcome.RETRY, cause, IoFailures.describe(failure), started, trace.remoteAddress(), timestamp);
    }

    private AttemptResult failure(
            DeliveryOutcome outcome,
            FailureCause cause,
            @Nullable String error,
            long started,
            @Nullable InetAddress remote,
            long timestamp) {
        return new AttemptResult(
                outcome, cause, null, null, Map.of(), "", false, elapsed(started), text(remote), error, timestamp);
    }

    private Map<String, String> capturedHeaders(Response response) {
        Map<String, String> captured = new LinkedHashMap<>();
        for (String name : response.headers().names()) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (capturedHeaders.contains(lower)) {
                captured.put(lower, String.join(", ", response.headers(name)));
            }
        }
        return captured;
    }

    private static @Nullable String text(@Nullable InetAddress address) {
        return address == null ? null : address.getHostAddress();
    }

    private static Duration elapsed(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /** Releases the connection pool and threads when this delivery created its own client. */
    @Override
    public void close() {
        if (ownsClient) {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    @Override
    public String toString() {
        return "HttpDelivery[" + guard.policy() + ", " + classifier + ", timeouts=" + defaultTimeouts
                + ", maxResponseBodyBytes=" + maxResponseBodyBytes + "]";
    }

    /** Builder of {@link HttpDelivery}; each setter validates its argument and names it. */
    public static final class Builder {
        private SsrfGuard guard = SsrfGuard.of(SsrfPolicy.ofDefaults());
        private OutcomeClassifier classifier = OutcomeClassifier.ofDefaults();
        private @Nullable RetryAfter retryAfter;
        private EndpointTimeouts defaultTimeouts = EndpointTimeouts.DEFAULTS;
        private long maxResponseBodyBytes = DEFAULT_MAX_RESPONSE_BODY_BYTES;
        private Set<String> capturedHeaders = DEFAULT_CAPTURED_HEADERS;
        private Clock clock = Clock.systemUTC();
        private Dns dns = Dns.SYSTEM;
        private @Nullable OkHttpClient baseClient;

        private Builder() {}

        /** The SSRF policy (allow-list, https-only). Default: nothing allow-listed. */
        public Builder ssrfPolicy(SsrfPolicy policy) {
            this.guard = SsrfGuard.of(Require.notNull(policy, "ssrfPolicy"));
            return this;
        }

        /** How statuses map to outcomes. Default {@link OutcomeClassifier#ofDefaults()}. */
        public Builder classifier(OutcomeClassifier classifier) {
            this.classifier = Require.notNull(classifier, "classifier");
            return this;
        }

        /** How {@code Retry-After} is parsed and clamped. Default [1 s, 1 h] on the delivery's clock. */
        public Builder retryAfter(RetryAfter retryAfter) {
            this.retryAfter = Require.notNull(retryAfter, "retryAfter");
            return this;
        }

        /** Timeouts for requests that do not carry their own. Default {@link EndpointTimeouts#DEFAULTS}. */
        public Builder defaultTimeouts(EndpointTimeouts timeouts) {
            this.defaultTimeouts = Require.notNull(timeouts, "defaultTimeouts");
            return this;
        }

        /** Cap on decompressed response body bytes read and kept; 1 byte to 1 MiB. Default 16 KiB. */
        public Builder maxResponseBodyBytes(long maxResponseBodyBytes) {
            if (maxResponseBodyBytes <= 0 || maxResponseBodyBytes > MAX_RESPONSE_BODY_BYTES_LIMIT) {
                throw new IllegalArgumentException("maxResponseBodyBytes must be positive and at most "
                        + MAX_RESPONSE_BODY_BYTES_LIMIT + ", got " + maxResponseBodyBytes);
            }
            this.maxResponseBodyBytes = maxResponseBodyBytes;
            return this;
        }

        /** Upper bound of {@link Builder#maxResponseBodyBytes(long)}: 1 MiB is plenty for an attempt log. */
        public static final long MAX_RESPONSE_BODY_BYTES_LIMIT = 1024 * 1024;

        /** Response headers kept in the result (case-insensitive). Default {@link #DEFAULT_CAPTURED_HEADERS}. */
        public Builder capturedHeaders(Set<String> names) {
            Require.notNull(names, "capturedHeaders");
            this.capturedHeaders = names.stream()
                    .map(name -> Require.element(name, "capturedHeaders").toLowerCase(Locale.ROOT))
                    .collect(Collectors.toUnmodifiableSet());
            return this;
        }

        /** The clock for {@code webhook-timestamp} and {@code Retry-After} dates. Default system UTC. */
        public Builder clock(Clock clock) {
            this.clock = Require.notNull(clock, "clock");
            return this;
        }

        /** The resolver the SSRF guard wraps. Default the system resolver; tests pass a fake one. */
        public Builder dns(Dns dns) {
            this.dns = Require.notNull(dns, "dns");
            return this;
        }

        /**
         * An OkHttp client to derive from (sharing its connection pool and dispatcher); the guard,
         * timeouts and redirect settings are applied on top. Default: a private client, released by
         * {@link HttpDelivery#close()}.
         */
        public Builder baseClient(OkHttpClient client) {
            this.baseClient = Require.notNull(client, "baseClient");
            return this;
        }

        /** Builds the delivery. */
        public HttpDelivery build() {
            return new HttpDelivery(this);
        }
    }
}
