package dev.postbox.spring.http;

import dev.postbox.JobRequest;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.RedactedUrl;
import dev.postbox.http.ssrf.PortPolicy;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.SustainedFailurePolicy;
import dev.postbox.spring.RetryProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.http.*}: webhook delivery with {@code postbox-delivery-http}. The
 * defaults are the module's ({@code HttpDeliveryModule}, {@code HttpDelivery}, {@code
 * EndpointTimeouts.DEFAULTS}, {@code SustainedFailurePolicy.DEFAULTS}).
 */
@ConfigurationProperties("postbox.http")
public class PostboxHttpProperties {

    /** Whether to configure webhook delivery when postbox-delivery-http is on the classpath. */
    private boolean enabled = true;

    /**
     * Destinations let through the SSRF guard although they are loopback, private, link-local or
     * otherwise internal: CIDRs (10.0.0.0/8, 127.0.0.1/32), bare IP addresses or host names
     * (hooks.internal, *.corp.example). Empty by default: only public addresses are reachable.
     */
    private List<String> allowList = new ArrayList<>();

    /** Whether plain http:// endpoint URLs are refused. */
    private boolean httpsOnly = false;

    /**
     * Destination ports deliveries may use, as ports (8443) or inclusive ranges (1024-65535); a port
     * must also not be denied. Applies to every destination, allow-listed ones too.
     */
    private List<String> allowedPorts = new ArrayList<>(PortPolicy.DEFAULT_ALLOWED);

    /**
     * Destination ports refused although allowed: by default the well-known ports of internal
     * services (databases, caches, brokers, Docker, etcd, Kubernetes, kubelet). Setting it replaces
     * the whole list.
     */
    private List<String> deniedPorts = new ArrayList<>(PortPolicy.DEFAULT_DENIED);

    /** Timeouts of one attempt for endpoints that set none of their own. */
    private final Timeouts timeouts = new Timeouts();

    /** Encryption at rest of endpoint signing secrets and header values. */
    private final Secrets secrets = new Secrets();

    /**
     * Cap on the decompressed response body bytes read and kept in the attempt log (1 byte to 1 MiB);
     * the rest is discarded.
     */
    private long maxResponseBodyBytes = HttpDelivery.DEFAULT_MAX_RESPONSE_BODY_BYTES;

    /** Largest payload JSON, in bytes, accepted by send and publish; larger ones are refused at once. */
    private int maxPayloadBytes = HttpDeliveryModule.DEFAULT_MAX_PAYLOAD_BYTES;

    /** The queue of delivery and fan-out jobs; workers must serve it (postbox.worker.queues). */
    private String queue = JobRequest.DEFAULT_QUEUE;

    /** Retry policy of deliveries to endpoints that have no own policy. */
    private final Retry retry = new Retry();

    /** A cluster-wide rate limit over all endpoints together; none unless rate-per-second is set. */
    private final GlobalRateLimit globalRateLimit = new GlobalRateLimit();

    /** When an endpoint that keeps failing is disabled. */
    private final SustainedFailure sustainedFailure = new SustainedFailure();

    /** Subscribers expanded into delivery jobs per fan-out transaction. */
    private int fanOutBatchSize = HttpDeliveryModule.DEFAULT_FAN_OUT_BATCH_SIZE;

    /**
     * How long a delivery may hold its worker thread waiting for a rate-limit permit before it is
     * snoozed (put back without spending an attempt, to come back when a permit is likely). 0, the
     * default: never wait, so that a rate-limited endpoint never slows down the other jobs of its
     * queue.
     */
    private Duration maxPermitWait = HttpDeliveryModule.DEFAULT_MAX_PERMIT_WAIT;

    /**
     * How fast an endpoint's rate recovers after 429 answers cut it: its factor climbs back by the
     * whole configured rate per this duration (linearly), until the next cut or the full rate.
     */
    private Duration rateRecovery = HttpDeliveryModule.DEFAULT_RATE_RECOVERY;

    /**
     * Lowest fraction of an endpoint's configured rate that 429 answers can cut it to, in (0, 1]; a
     * 429 at this floor also pauses the endpoint for its Retry-After.
     */
    private double minRateFactor = HttpDeliveryModule.DEFAULT_MIN_RATE_FACTOR;

    /** How long a delivery of a disabled endpoint stays parked before it looks again. */
    private Duration parkDelay = HttpDeliveryModule.DEFAULT_PARK_DELAY;

    /**
     * Endpoints registered (or updated, keeping their enabled/disabled state) at start-up, by name,
     * e.g. postbox.http.endpoints.billing.url. Placeholders in the URL are resolved at start-up after
     * the web server started, so ${local.server.port} works.
     */
    private final Map<String, EndpointProperties> endpoints = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getAllowList() {
        return allowList;
    }

    public void setAllowList(List<String> allowList) {
        this.allowList = allowList;
    }

    public boolean isHttpsOnly() {
        return httpsOnly;
    }

    public void setHttpsOnly(boolean httpsOnly) {
        this.httpsOnly = httpsOnly;
    }

    public List<String> getAllowedPorts() {
        return allowedPorts;
    }

    public void setAllowedPorts(List<String> allowedPorts) {
        this.allowedPorts = allowedPorts;
    }

    public List<String> getDeniedPorts() {
        return deniedPorts;
    }

    public void setDeniedPorts(List<String> deniedPorts) {
        this.deniedPorts = deniedPorts;
    }

    public Timeouts getTimeouts() {
        return timeouts;
    }

    public Secrets getSecrets() {
        return secrets;
    }

    public long getMaxResponseBodyBytes() {
        return maxResponseBodyBytes;
    }

    public void setMaxResponseBodyBytes(long maxResponseBodyBytes) {
        this.maxResponseBodyBytes = maxResponseBodyBytes;
    }

    public int getMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public Retry getRetry() {
        return retry;
    }

    public GlobalRateLimit getGlobalRateLimit() {
        return globalRateLimit;
    }

    public SustainedFailure getSustainedFailure() {
        return sustainedFailure;
    }

    public int getFanOutBatchSize() {
        return fanOutBatchSize;
    }

    public void setFanOutBatchSize(int fanOutBatchSize) {
        this.fanOutBatchSize = fanOutBatchSize;
    }

    public Duration getMaxPermitWait() {
        return maxPermitWait;
    }

    public void setMaxPermitWait(Duration maxPermitWait) {
        this.maxPermitWait = maxPermitWait;
    }

    public Duration getRateRecovery() {
        return rateRecovery;
    }

    public void setRateRecovery(Duration rateRecovery) {
        this.rateRecovery = rateRecovery;
    }

    public double getMinRateFactor() {
        return minRateFactor;
    }

    public void setMinRateFactor(double minRateFactor) {
        this.minRateFactor = minRateFactor;
    }

    public Duration getParkDelay() {
        return parkDelay;
    }

    public void setParkDelay(Duration parkDelay) {
        this.parkDelay = parkDelay;
    }

    public Map<String, EndpointProperties> getEndpoints() {
        return endpoints;
    }

    /**
     * Encryption at rest (AES-GCM) of the signing secrets and header values stored in
     * outbox_endpoint. Without a key, registering an endpoint fails unless allow-plaintext is true.
     */
    public static class Secrets {

        /**
         * Encryption keys by key id (letters, digits, '_' or '-'): base64 AES keys of 32 bytes (or 16
         * or 24), e.g. from `openssl rand -base64 32`. Keep a retired key here until re-encryption
         * (POST /actuator/postboxwebhooks) has rewritten every value sealed with it.
         */
        private Map<String, String> keys = new LinkedHashMap<>();

        /** The id of the key new values are sealed with; optional when exactly one key is configured. */
        private @Nullable String activeKey;

        /**
         * Whether secrets may be stored in clear when no key is configured (development only); false:
         * registering an endpoint without a key fails, naming this setting and the keys.
         */
        private boolean allowPlaintext = false;

        /**
         * Migration switch, with keys configured: whether plain (unencrypted) values stored before
         * encryption was configured are still read. False: reading one fails naming the endpoint and
         * field (a plain value may have been written into the table to replace a secret). To migrate:
         * set it to true, run re-encryption (POST /actuator/postboxwebhooks), set it back to false.
         */
        private boolean migratePlaintext = false;

        public Map<String, String> getKeys() {
            return keys;
        }

        public void setKeys(Map<String, String> keys) {
            this.keys = keys;
        }

        public @Nullable String getActiveKey() {
            return activeKey;
        }

        public void setActiveKey(@Nullable String activeKey) {
            this.activeKey = activeKey;
        }

        public boolean isAllowPlaintext() {
            return allowPlaintext;
        }

        public void setAllowPlaintext(boolean allowPlaintext) {
            this.allowPlaintext = allowPlaintext;
        }

        public boolean isMigratePlaintext() {
            return migratePlaintext;
        }

        public void setMigratePlaintext(boolean migratePlaintext) {
            this.migratePlaintext = migratePlaintext;
        }

        /** Never shows the keys. */
        @Override
        public String toString() {
            return "Secrets[keys=" + keys.keySet() + " (hidden), activeKey=" + activeKey + ", allowPlaintext="
                    + allowPlaintext + ", migratePlaintext=" + migratePlaintext + "]";
        }
    }

    /** Default timeouts of one attempt. */
    public static class Timeouts {

        /** TCP (and TLS) connect timeout. */
        private Duration connect = EndpointTimeouts.DEFAULTS.connectTimeout();

        /** Maximum inactivity while writing the request or reading the response. */
        private Duration read = EndpointTimeouts.DEFAULTS.readTimeout();

        /** The whole attempt, from DNS to the last response byte read. */
        private Duration call = EndpointTimeouts.DEFAULTS.callTimeout();

        public Duration getConnect() {
            return connect;
        }

        public void setConnect(Duration connect) {
            this.connect = connect;
        }

        public Duration getRead() {
            return read;
        }

        public void setRead(Duration read) {
            this.read = read;
        }

        public Duration getCall() {
            return call;
        }

        public void setCall(Duration call) {
            this.call = call;
        }
    }

    /** Delivery retry policy: base 5 s, cap 1 h, 12 attempts (endpoints recover slowly). */
    public static class Retry extends RetryProperties {

        public Retry() {
            super(
                    HttpDeliveryModule.DEFAULT_RETRY_POLICY.base(),
                    HttpDeliveryModule.DEFAULT_RETRY_POLICY.cap(),
                    HttpDeliveryModule.DEFAULT_RETRY_POLICY.maxAttempts());
        }
    }

    /** Cluster-wide token bucket over all endpoints together. */
    public static class GlobalRateLimit {

        /** Permits per second over all endpoints and processes; no global limit when unset. */
        private @Nullable Double ratePerSecond;

        /** Capacity of the global bucket. */
        private int burst = HttpDeliveryModule.DEFAULT_GLOBAL_BURST;

        public @Nullable Double getRatePerSecond() {
            return ratePerSecond;
        }

        public void setRatePerSecond(@Nullable Double ratePerSecond) {
            this.ratePerSecond = ratePerSecond;
        }

        public int getBurst() {
            return burst;
        }

        public void setBurst(int burst) {
            this.burst = burst;
        }
    }

    /**
     * Disabling endpoints that keep failing: after min-failures consecutive retryable failures
     * spanning at least min-duration without a success.
     */
    public static class SustainedFailure {

        /** Whether endpoints that keep failing are disabled at all. */
        private boolean enabled = true;

        /** Consecutive retryable failures (5xx, 408/425/429, timeouts, connection errors) needed. */
        private int minFailures = SustainedFailurePolicy.DEFAULTS.minFailures();

        /** How long the failure streak must last. */
        private Duration minDuration = SustainedFailurePolicy.DEFAULTS.minDuration();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getMinFailures() {
            return minFailures;
        }

        public void setMinFailures(int minFailures) {
            this.minFailures = minFailures;
        }

        public Duration getMinDuration() {
            return minDuration;
        }

        public void setMinDuration(Duration minDuration) {
            this.minDuration = minDuration;
        }
    }

    /** One endpoint declared in properties. */
    public static class EndpointProperties {

        /**
         * Where deliveries are POSTed; checked by the SSRF guard at start-up. Placeholders are
         * resolved at start-up (after the web server started).
         */
        private @Nullable String url;

        /**
         * Signing secrets in their whsec_<base64> form, newest first; two during rotation. Never
         * logged. At least one is required.
         */
        private List<String> secrets = new ArrayList<>();

        /** Extra request headers sent with every delivery (values are not logged). */
        private Map<String, String> headers = new LinkedHashMap<>();

        /** A description shown by the admin endpoint. */
        private @Nullable String description;

        /** Event types this endpoint receives from publish; * for all. */
        private List<String> eventTypes = new ArrayList<>();

        /** Cluster-wide permits per second for this endpoint (may be fractional); unlimited when unset. */
        private @Nullable Double ratePerSecond;

        /** Token bucket capacity; defaults to the rate rounded up. */
        private @Nullable Integer burst;

        /** Most concurrent deliveries to this endpoint per worker process; no cap when unset. */
        private @Nullable Integer maxInFlight;

        /** This endpoint's timeouts; unset ones take postbox.http.timeouts.*. */
        private final EndpointTimeoutProperties timeouts = new EndpointTimeoutProperties();

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public List<String> getSecrets() {
            return secrets;
        }

        public void setSecrets(List<String> secrets) {
            this.secrets = secrets;
        }

        public Map<String, String> getHeaders() {
            return headers;
        }

        public void setHeaders(Map<String, String> headers) {
            this.headers = headers;
        }

        public @Nullable String getDescription() {
            return description;
        }

        public void setDescription(@Nullable String description) {
            this.description = description;
        }

        public List<String> getEventTypes() {
            return eventTypes;
        }

        public void setEventTypes(List<String> eventTypes) {
            this.eventTypes = eventTypes;
        }

        public @Nullable Double getRatePerSecond() {
            return ratePerSecond;
        }

        public void setRatePerSecond(@Nullable Double ratePerSecond) {
            this.ratePerSecond = ratePerSecond;
        }

        public @Nullable Integer getBurst() {
            return burst;
        }

        public void setBurst(@Nullable Integer burst) {
            this.burst = burst;
        }

        public @Nullable Integer getMaxInFlight() {
            return maxInFlight;
        }

        public void setMaxInFlight(@Nullable Integer maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        public EndpointTimeoutProperties getTimeouts() {
            return timeouts;
        }

        /** Hides the secrets and header values. */
        @Override
        public String toString() {
            return "EndpointProperties[url=" + (url == null ? null : RedactedUrl.of(url)) + ", secrets="
                    + secrets.size() + " (hidden), headers=" + headers.keySet() + ", eventTypes=" + eventTypes + "]";
        }
    }

    /** Per-endpoint timeouts; an unset one takes the default. */
    public static class EndpointTimeoutProperties {

        /** TCP (and TLS) connect timeout of this endpoint. */
        private @Nullable Duration connect;

        /** Read/write inactivity timeout of this endpoint. */
        private @Nullable Duration read;

        /** Whole-attempt timeout of this endpoint. */
        private @Nullable Duration call;

        public @Nullable Duration getConnect() {
            return connect;
        }

        public void setConnect(@Nullable Duration connect) {
            this.connect = connect;
        }

        public @Nullable Duration getRead() {
            return read;
        }

        public void setRead(@Nullable Duration read) {
            this.read = read;
        }

        public @Nullable Duration getCall() {
            return call;
        }

        public void setCall(@Nullable Duration call) {
            this.call = call;
        }

        boolean isSet() {
            return connect != null || read != null || call != null;
        }
    }
}
