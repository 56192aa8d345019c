package dev.postbox.http.webhook;

import dev.postbox.Require;
import dev.postbox.RetryPolicy;
import dev.postbox.TenantId;
import dev.postbox.http.DeliveryRequest;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.RedactedUrl;
import dev.postbox.http.internal.HeaderRules;
import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A webhook endpoint: where deliveries go, how they are signed, limited and retried, and whether it
 * is enabled. Immutable; build with {@link #builder(String, String)}. {@link #toString()} never
 * shows the secrets, and shows the URL without credentials or query (either may carry a token).
 *
 * <pre>{@code
 * registry.register(Endpoint.builder("billing", "https://billing.example.com/hooks")
 *         .secret(WebhookSecret.generate())
 *         .rateLimit(50, 10)
 *         .subscribe("invoice.paid", "invoice.failed")
 *         .build());
 * }</pre>
 */
public final class Endpoint {

    /** Endpoint names: a letter, then letters, digits, {@code _} or {@code -}; at most 100 characters. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,99}");

    /** Subscribes an endpoint to every event type. */
    public static final String ALL_EVENTS = "*";

    private final String name;
    private final String url;
    private final List<WebhookSecret> secrets;
    private final Map<String, String> headers;
    private final @Nullable String description;
    private final Set<String> eventTypes;
    private final @Nullable EndpointTimeouts timeouts;
    private final @Nullable Double ratePerSecond;
    private final int burst;
    private final @Nullable Integer maxInFlight;
    private final @Nullable RetryPolicy retryPolicy;
    private final EndpointState state;
    private final @Nullable String disabledReason;
    private final @Nullable Instant disabledAt;
    private final int consecutiveFailures;
    private final @Nullable Instant failingSince;
    private final @Nullable String tenant;

    private Endpoint(Builder b) {
        this.name = requireName(b.name);
        this.url = Require.notNull(b.url, "url").strip();
        if (url.isEmpty()) {
            throw new IllegalArgumentException("url of endpoint '" + name + "' may not be blank");
        }
        if (b.secrets.isEmpty()) {
            throw new IllegalArgumentException("endpoint '" + name + "' needs at least one signing secret:"
                    + " add WebhookSecret.generate() (or the receiver's whsec_... secret)");
        }
        this.secrets = List.copyOf(b.secrets);
        // Validates header names and values (reserved names, characters) now rather than per attempt.
        DeliveryRequest.builder().headers(b.headers);
        b.headers.forEach((header, value) -> HeaderRules.check("endpoint '" + name + "'", header, value));
        this.headers = Map.copyOf(b.headers);
        this.description = b.description;
        this.eventTypes = Set.copyOf(b.eventTypes);
        this.timeouts = b.timeouts;
        this.ratePerSecond = b.ratePerSecond;
        this.burst =
                b.burst != null ? b.burst : b.ratePerSecond == null ? 1 : (int) Math.max(1, Math.ceil(b.ratePerSecond));
        this.maxInFlight = b.maxInFlight;
        if (b.retryPolicy != null) {
            atLeastOneMilli("retryPolicy.base", b.retryPolicy.base());
            atLeastOneMilli("retryPolicy.cap", b.retryPolicy.cap());
        }
        this.retryPolicy = b.retryPolicy;
        this.state = b.state;
        this.disabledReason = b.disabledReason;
        this.disabledAt = b.disabledAt;
        this.consecutiveFailures = b.consecutiveFailures;
        this.failingSince = b.failingSince;
        this.tenant = b.tenant;
    }

    /** Durations are stored in whole milliseconds: less than 1 ms would be stored as 0, which the table refuses. */
    private void atLeastOneMilli(String what, Duration value) {
        if (value.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("endpoint '" + name + "': " + what + " must be at least 1 ms, got "
                    + value + " (durations are stored in whole milliseconds)");
        }
    }

    static String requireName(@Nullable String name) {
        String checked = Require.notNull(name, "endpoint name");
        if (!NAME.matcher(checked).matches()) {
            throw new IllegalArgumentException("endpoint name '" + checked + "' is invalid: start with a letter and"
                    + " use letters, digits, '_' or '-' only (at most 100 characters), e.g. 'billing-prod'");
        }
        return checked;
    }

    /** A builder for an endpoint with the given name and URL. */
    public static Builder builder(String name, String url) {
        return new Builder(name, url);
    }

    /** A builder preset with this endpoint's configuration (state included). */
    public Builder toBuilder() {
        Builder b = new Builder(name, url);
        b.secrets.addAll(secrets);
        b.headers.putAll(headers);
        b.description = description;
        b.eventTypes.addAll(eventTypes);
        b.timeouts = timeouts;
        b.ratePerSecond = ratePerSecond;
        b.burst = ratePerSecond == null ? null : burst;
        b.maxInFlight = maxInFlight;
        b.retryPolicy = retryPolicy;
        b.state = state;
        b.disabledReason = disabledReason;
        b.disabledAt = disabledAt;
        b.consecutiveFailures = consecutiveFailures;
        b.failingSince = failingSince;
        b.tenant = tenant;
        return b;
    }

    public String name() {
        return name;
    }

    public String url() {
        return url;
    }

    /** Active signing secrets, newest first. Handle with care: never log them. */
    public List<WebhookSecret> secrets() {
        return secrets;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public Optional<String> description() {
        return Optional.ofNullable(description);
    }

    /** Event types this endpoint receives from {@code publish}; {@value #ALL_EVENTS} means all. */
    public Set<String> eventTypes() {
        return eventTypes;
    }

    public boolean subscribesTo(String eventType) {
        return eventTypes.contains(ALL_EVENTS) || eventTypes.contains(eventType);
    }

    /** Per-endpoint timeouts, or empty for the delivery defaults. */
    public Optional<EndpointTimeouts> timeouts() {
        return Optional.ofNullable(timeouts);
    }

    /** Cluster-wide permits per second, or empty when this endpoint has no own limit. */
    public Optional<Double> ratePerSecond() {
        return Optional.ofNullable(ratePerSecond);
    }

    /** Token bucket capacity (meaningful with a rate). */
    public int burst() {
        return burst;
    }

    /** Most concurrent deliveries per worker process, or empty for no cap. */
    public Optional<Integer> maxInFlight() {
        return Optional.ofNullable(maxInFlight);
    }

    /** This endpoint's retry policy, or empty for the delivery handler's default. */
    public Optional<RetryPolicy> retryPolicy() {
        return Optional.ofNullable(retryPolicy);
    }

    public EndpointState state() {
        return state;
    }

    public boolean isEnabled() {
        return state == EndpointState.ENABLED;
    }

    public Optional<String> disabledReason() {
        return Optional.ofNullable(disabledReason);
    }

    public Optional<Instant> disabledAt() {
        return Optional.ofNullable(disabledAt);
    }

    /** Retryable delivery failures since the last success. */
    public int consecutiveFailures() {
        return consecutiveFailures;
    }

    /** Start of the current failure streak, empty while healthy. */
    public Optional<Instant> failingSince() {
        return Optional.ofNullable(failingSince);
    }

    /**
     * The tenant that owns the endpoint; empty for the default tenant. Deliveries to it belong to the
     * tenant (its webhook rate limit applies), and published events of a tenant reach only its own
     * endpoints (docs/tenants.md).
     */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    @Override
    public String toString() {
        return "Endpoint[name=" + name + (tenant == null ? "" : ", tenant=" + tenant) + ", url=" + redactedUrl()
                + ", secrets=" + secrets.size() + " (hidden), state="
                + state.name().toLowerCase(Locale.ROOT) + (disabledReason != null ? " (" + disabledReason + ")" : "")
                + ", rate=" + (ratePerSecond == null ? "unlimited" : ratePerSecond + "/s burst " + burst)
                + ", eventTypes=" + eventTypes + "]";
    }

    /**
     * The URL for logs, messages and admin pages ({@link RedactedUrl}): scheme, host, port and path;
     * never user info or fragment, and the query replaced by {@value RedactedUrl#HIDDEN_QUERY}.
     */
    public String redactedUrl() {
        return RedactedUrl.of(url);
    }

    /** Builds an {@link Endpoint}; {@code build()} validates. */
    public static final class Builder {
        private final String name;
        private String url;
        private final List<WebhookSecret> secrets = new ArrayList<>();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private @Nullable String description;
        private final Set<String> eventTypes = new LinkedHashSet<>();
        private @Nullable EndpointTimeouts timeouts;
        private @Nullable Double ratePerSecond;
        private @Nullable Integer burst;
        private @Nullable Integer maxInFlight;
        private @Nullable RetryPolicy retryPolicy;
        private EndpointState state = EndpointState.ENABLED;
        private @Nullable String disabledReason;
        private @Nullable Instant disabledAt;
        private int consecutiveFailures;
        private @Nullable Instant failingSince;
        private @Nullable String tenant;

        private Builder(String name, String url) {
            this.name = requireName(name);
            this.url = Require.notNull(url, "url");
        }

        public Builder url(String url) {
            this.url = Require.notNull(url, "url");
            return this;
        }

        /** Adds a signing secret; the first one added is the newest. */
        public Builder secret(WebhookSecret secret) {
            secrets.add(Require.notNull(secret, "secret"));
            return this;
        }

        /** Adds a signing secret in its {@code whsec_<base64>} form. */
        public Builder secret(String serialized) {
            return secret(WebhookSecret.parse(serialized));
        }

        /** Replaces the secrets (rotation: pass the new one first and keep the old one for a while). */
        public Builder secrets(List<WebhookSecret> secrets) {
            this.secrets.clear();
            Require.notNull(secrets, "secrets").forEach(this::secret);
            return this;
        }

        public Builder header(String name, String value) {
            headers.put(Require.notNull(name, "header name"), Require.notNull(value, "header value"));
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            this.headers.clear();
            Require.notNull(headers, "headers").forEach(this::header);
            return this;
        }

        public Builder description(@Nullable String description) {
            this.description = description;
            return this;
        }

        /** Subscribes to event types ({@value Endpoint#ALL_EVENTS} for all). */
        public Builder subscribe(String... eventTypes) {
            for (String type : eventTypes) {
                if (type == null || type.isBlank()) {
                    throw new IllegalArgumentException("event type may not be blank");
                }
                this.eventTypes.add(type);
            }
            return this;
        }

        /** Replaces the subscribed event types. */
        public Builder eventTypes(Set<String> eventTypes) {
            this.eventTypes.clear();
            return subscribe(eventTypes.toArray(String[]::new));
        }

        public Builder timeouts(@Nullable EndpointTimeouts timeouts) {
            this.timeouts = timeouts;
            return this;
        }

        /** Cluster-wide limit: {@code permitsPerSecond} (may be fractional) with bucket capacity {@code burst}. */
        public Builder rateLimit(double permitsPerSecond, int burst) {
            if (!(permitsPerSecond > 0) || Double.isInfinite(permitsPerSecond)) {
                throw new IllegalArgumentException(
                        "permitsPerSecond must be positive and finite, got " + permitsPerSecond);
            }
            if (burst < 1) {
                throw new IllegalArgumentException("burst must be at least 1, got " + burst);
            }
            this.ratePerSecond = permitsPerSecond;
            this.burst = burst;
            return this;
        }

        /** Removes the per-endpoint rate limit. */
        public Builder unlimited() {
            this.ratePerSecond = null;
            this.burst = null;
            return this;
        }

        public Builder maxInFlight(@Nullable Integer maxInFlight) {
            if (maxInFlight != null && maxInFlight < 1) {
                throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
            }
            this.maxInFlight = maxInFlight;
            return this;
        }

        public Builder retryPolicy(@Nullable RetryPolicy retryPolicy) {
            this.retryPolicy = retryPolicy;
            return this;
        }

        /**
         * The tenant that owns the endpoint (a {@link TenantId}), or null for the default tenant.
         *
         * @throws IllegalArgumentException when it is not a valid tenant id
         */
        public Builder tenant(@Nullable String tenant) {
            this.tenant = tenant == null ? null : TenantId.validate(tenant, "tenant of endpoint '" + name + "'");
            return this;
        }

        Builder state(EndpointState state, @Nullable String reason, @Nullable Instant at) {
            this.state = state;
            this.disabledReason = reason;
            this.disabledAt = at;
            return this;
        }

        Builder health(int consecutiveFailures, @Nullable Instant failingSince) {
            this.consecutiveFailures = consecutiveFailures;
            this.failingSince = failingSince;
            return this;
        }

        public Endpoint build() {
            return new Endpoint(this);
        }
    }

    static @Nullable Duration millis(@Nullable Long ms) {
        return ms == null ? null : Duration.ofMillis(ms);
    }
}
