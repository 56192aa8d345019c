package dev.postbox.http.webhook;

import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.JsonCodec;
import dev.postbox.PostboxModule;
import dev.postbox.Require;
import dev.postbox.RetryPolicy;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.SecretCipher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Webhook delivery as a {@link PostboxModule}: the {@link EndpointRegistry}, the {@link Webhooks}
 * publisher, and the two job handlers (deliveries and fan-out). Build it first, then add it to the
 * engine: the engine registers its handlers and, once built, installs it with its outbox and admin.
 *
 * <pre>{@code
 * HttpDeliveryModule http = HttpDeliveryModule.builder(dataSource)
 *         .delivery(HttpDelivery.builder().ssrfPolicy(policy).build())
 *         .build();
 * Postbox postbox = Postbox.builder(dataSource).module(http).build();
 * postbox.start();
 *
 * http.endpoints().register(Endpoint.builder("billing", "https://billing.example.com/hooks")
 *         .secret(WebhookSecret.generate()).rateLimit(50, 10).subscribe("invoice.paid").build());
 * http.webhooks().publish("invoice.paid", event);   // in a transaction
 * }</pre>
 *
 * Sending, publishing and enabling an endpoint (which replays dead letters) need the engine: before
 * the module is installed they fail with an error that says so. Registering endpoints does not.
 */
public final class HttpDeliveryModule implements PostboxModule, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HttpDeliveryModule.class);

    /** The default retry policy of deliveries: base 5 s, cap 1 h, 12 attempts (about a day). */
    public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.custom()
            .base(Duration.ofSeconds(5))
            .cap(Duration.ofHours(1))
            .maxAttempts(12)
            .build();

    /**
     * Default of {@link Builder#maxPermitWait}: zero, a delivery without a rate-limit permit never
     * holds its worker thread; it is snoozed at once.
     */
    public static final Duration DEFAULT_MAX_PERMIT_WAIT = Duration.ZERO;

    /** Default of {@link Builder#minRateFactor}: 429s lower an endpoint to 10% of its rate at most. */
    public static final double DEFAULT_MIN_RATE_FACTOR = 0.1;

    /**
     * Default of {@link Builder#rateRecovery}: after a 429 cut, the rate climbs back by the whole
     * configured rate per second (by 10% of it every 100 ms without another cut).
     */
    public static final Duration DEFAULT_RATE_RECOVERY = Duration.ofSeconds(1);

    /** Default of {@link Builder#maxPayloadBytes}: 256 KiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

    /** Default of {@link Builder#parkDelay}: a delivery of a disabled endpoint looks again after 10 min. */
    public static final Duration DEFAULT_PARK_DELAY = Duration.ofMinutes(10);

    /** Default of {@link Builder#fanOutBatchSize}: 500 subscribers per fan-out transaction. */
    public static final int DEFAULT_FAN_OUT_BATCH_SIZE = 500;

    /** Default burst of {@link Builder#globalRateLimit}: one permit. */
    public static final int DEFAULT_GLOBAL_BURST = 1;

    /**
     * Tunables of the module.
     *
     * @param queue queue of delivery and fan-out jobs
     * @param maxPayloadBytes largest payload JSON accepted by send/publish
     * @param maxPermitWait how long a delivery may hold its worker thread waiting for a permit before
     *     it is snoozed
     * @param parkDelay how long a delivery of a disabled endpoint is snoozed before it looks again
     * @param leaseChunk most permits leased from the database at once
     * @param rateRecovery how long an endpoint's adaptive factor takes to climb back by 1 (the whole
     *     configured rate) after a 429 cut
     * @param minRateFactor lowest fraction of the configured rate that 429s can lower it to
     * @param globalRate cluster-wide permits per second over all endpoints, or null for none
     * @param globalBurst capacity of the global bucket
     * @param fanOutBatchSize subscribers expanded per fan-out transaction
     * @param sustainedFailure when a failing endpoint is disabled
     */
    public record Settings(
            String queue,
            int maxPayloadBytes,
            Duration maxPermitWait,
            Duration parkDelay,
            int leaseChunk,
            Duration rateRecovery,
            double minRateFactor,
            @Nullable Double globalRate,
            int globalBurst,
            int fanOutBatchSize,
            SustainedFailurePolicy sustainedFailure) {}

    private final Settings settings;
    private final HttpDelivery delivery;
    private final boolean ownsDelivery;
    private final EndpointRegistry registry;
    private final Webhooks webhooks;
    private final WebhookDeliveryHandler deliveryHandler;
    private final FanOutHandler fanOutHandler;
    private final RetryPolicy retryPolicy;
    private final AtomicReference<@Nullable Context> engine = new AtomicReference<>();

    private HttpDeliveryModule(Builder b) {
        this.settings = new Settings(
                b.queue,
                b.maxPayloadBytes,
                b.maxPermitWait,
                b.parkDelay,
                b.leaseChunk,
                b.rateRecovery,
                b.minRateFactor,
                b.globalRate,
                b.globalBurst,
                b.fanOutBatchSize,
                b.sustainedFailure);
        this.ownsDelivery = b.delivery == null;
        this.delivery = b.delivery != null ? b.delivery : HttpDelivery.builder().build();
        this.retryPolicy = b.retryPolicy;
        RateLimitStore rateLimits = new RateLimitStore(b.dataSource, b.minRateFactor, 1e9 / b.rateRecovery.toNanos());
        this.registry = new EndpointRegistry(
                b.dataSource,
                delivery.guard(),
                b.codec,
                () -> installed().admin(),
                b.listener,
                rateLimits,
                b.secretCipher,
                b.endpointCacheTtl);
        this.webhooks = new Webhooks(() -> installed().outbox(), registry, delivery.guard(), b.codec, settings);
        this.deliveryHandler = new WebhookDeliveryHandler(
                registry,
                delivery,
                rateLimits,
                new TenantRates(b.dataSource, rateLimits),
                new DeliveryLine(b.dataSource, b.queue),
                b.listener,
                b.instrumentation,
                settings);
        this.fanOutHandler =
                new FanOutHandler(b.dataSource, () -> installed().outbox(), registry, b.listener, settings);
    }

    /** A builder on the engine's {@code DataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The delivery and fan-out handlers, for {@link dev.postbox.Postbox.Builder#module}. */
    @Override
    public List<HandlerRegistration> handlers() {
        return List.of(deliveryRegistration(), fanOutRegistration());
    }

    /**
     * Binds the module to the engine it was added to (its outbox and admin). A module serves one
     * engine: a later install (a second engine built with it) is ignored, with a warning.
     */
    @Override
    public void install(Context context) {
        Require.notNull(context, "context");
        if (!engine.compareAndSet(null, context) && engine.get() != context) {
            log.warn("HttpDeliveryModule is already installed into an engine; it keeps sending through that one."
                    + " Build one module per engine.");
        }
    }

    private Context installed() {
        Context context = engine.get();
        if (context == null) {
            throw new IllegalStateException("HttpDeliveryModule is not installed into an engine yet: add it with"
                    + " Postbox.builder(dataSource).module(http) and build the engine before sending, publishing or"
                    + " enabling endpoints");
        }
        return context;
    }

    /** The registration of the delivery handler ({@value Webhooks#DELIVERY_KIND}). */
    public HandlerRegistration deliveryRegistration() {
        return HandlerRegistration.of(Webhooks.DELIVERY_KIND, deliveryHandler).retryPolicy(retryPolicy);
    }

    /** The registration of the fan-out handler ({@value Webhooks#FAN_OUT_KIND}). */
    public HandlerRegistration fanOutRegistration() {
        return HandlerRegistration.of(Webhooks.FAN_OUT_KIND, fanOutHandler);
    }

    public EndpointRegistry endpoints() {
        return registry;
    }

    public Webhooks webhooks() {
        return webhooks;
    }

    public HttpDelivery delivery() {
        return delivery;
    }

    public Settings settings() {
        return settings;
    }

    /** Closes the HTTP client when the module created it. */
    @Override
    public void close() {
        if (ownsDelivery) {
            delivery.close();
        }
    }

    /** Builds an {@link HttpDeliveryModule}; every setter validates its argument. */
    public static final class Builder {
        private final DataSource dataSource;
        private @Nullable HttpDelivery delivery;
        private JsonCodec codec = JsonCodec.jackson();
        private WebhookListener listener = WebhookListener.NO_OP;
        private WebhookInstrumentation instrumentation = WebhookInstrumentation.NO_OP;
        private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
        private String queue = JobRequest.DEFAULT_QUEUE;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private Duration maxPermitWait = DEFAULT_MAX_PERMIT_WAIT;
        private Duration parkDelay = DEFAULT_PARK_DELAY;
        private int leaseChunk = 5;
        private Duration rateRecovery = DEFAULT_RATE_RECOVERY;
        private double minRateFactor = DEFAULT_MIN_RATE_FACTOR;
        private @Nullable Double globalRate;
        private int globalBurst = DEFAULT_GLOBAL_BURST;
        private int fanOutBatchSize = DEFAULT_FAN_OUT_BATCH_SIZE;
        private SustainedFailurePolicy sustainedFailure = SustainedFailurePolicy.DEFAULTS;
        private Duration endpointCacheTtl = Duration.ofSeconds(1);
        private SecretCipher secretCipher = SecretCipher.unconfigured();

        private Builder(DataSource dataSource) {
            this.dataSource = Require.notNull(dataSource, "dataSource");
        }

        /** The HTTP delivery (SSRF policy, timeouts, classification); default {@code HttpDelivery.builder().build()}. */
        public Builder delivery(HttpDelivery delivery) {
            this.delivery = Require.notNull(delivery, "delivery");
            return this;
        }

        /** The codec for payload objects; use the engine's. Default: {@link JsonCodec#jackson()}. */
        public Builder codec(JsonCodec codec) {
            this.codec = Require.notNull(codec, "codec");
            return this;
        }

        public Builder listener(WebhookListener listener) {
            this.listener = Require.notNull(listener, "listener");
            return this;
        }

        /**
         * Wraps each webhook send (tracing, timing) and chooses the trace context it carries; default
         * {@link WebhookInstrumentation#NO_OP}, which sends the context stored with the job.
         */
        public Builder instrumentation(WebhookInstrumentation instrumentation) {
            this.instrumentation = Require.notNull(instrumentation, "instrumentation");
            return this;
        }

        /** Retry policy of deliveries of endpoints without their own. Default {@link #DEFAULT_RETRY_POLICY}. */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Require.notNull(retryPolicy, "retryPolicy");
            return this;
        }

        public Builder queue(String queue) {
            if (queue == null || queue.isBlank()) {
                throw new IllegalArgumentException("queue may not be blank");
            }
            this.queue = queue;
            return this;
        }

        /** Largest payload JSON accepted by send/publish. Default 256 KiB. */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = positive(maxPayloadBytes, "maxPayloadBytes");
            return this;
        }

        /**
         * How long a delivery may hold its worker thread waiting for a rate-limit permit before it is
         * snoozed (put back without spending an attempt, to come back when a permit is likely).
         * Default 0: it never waits, so a rate-limited endpoint never slows down other jobs of its
         * queue. A wait only makes sense on a queue that holds nothing but deliveries.
         */
        public Builder maxPermitWait(Duration maxPermitWait) {
            this.maxPermitWait = notNegative(maxPermitWait, "maxPermitWait");
            return this;
        }

        /** How long a delivery of a disabled endpoint stays parked before it looks again. Default 10 min. */
        public Builder parkDelay(Duration parkDelay) {
            this.parkDelay = notNegative(parkDelay, "parkDelay");
            return this;
        }

        /** Most permits leased from the database at once. Default 5. */
        public Builder leaseChunk(int leaseChunk) {
            this.leaseChunk = positive(leaseChunk, "leaseChunk");
            return this;
        }

        /**
         * How fast an endpoint's rate recovers after a 429 cut it: the adaptive factor climbs back
         * linearly, by 1 (the whole configured rate) per {@code rateRecovery}, until the next cut or
         * the full rate. Default 1 s: from the 10% floor to the full rate in 0.9 s without a 429.
         */
        public Builder rateRecovery(Duration rateRecovery) {
            Require.notNull(rateRecovery, "rateRecovery");
            if (rateRecovery.isNegative() || rateRecovery.isZero()) {
                throw new IllegalArgumentException("rateRecovery must be positive, got " + rateRecovery);
            }
            this.rateRecovery = rateRecovery;
            return this;
        }

        /**
         * Lowest fraction of the configured rate that 429s can lower an endpoint to; (0, 1]. Default
         * 0.1. A 429 that finds the endpoint at this floor also pauses it for its Retry-After.
         */
        public Builder minRateFactor(double minRateFactor) {
            if (!(minRateFactor > 0 && minRateFactor <= 1)) {
                throw new IllegalArgumentException("minRateFactor must be in (0, 1], got " + minRateFactor);
            }
            this.minRateFactor = minRateFactor;
            return this;
        }

        /** A cluster-wide limit over all endpoints together. Default none. */
        public Builder globalRateLimit(double permitsPerSecond, int burst) {
            if (!(permitsPerSecond > 0) || Double.isInfinite(permitsPerSecond)) {
                throw new IllegalArgumentException("permitsPerSecond must be positive, got " + permitsPerSecond);
            }
            this.globalRate = permitsPerSecond;
            this.globalBurst = positive(burst, "burst");
            return this;
        }

        /** Subscribers expanded per fan-out transaction. Default 500. */
        public Builder fanOutBatchSize(int fanOutBatchSize) {
            this.fanOutBatchSize = positive(fanOutBatchSize, "fanOutBatchSize");
            return this;
        }

        public Builder sustainedFailure(SustainedFailurePolicy sustainedFailure) {
            this.sustainedFailure = Require.notNull(sustainedFailure, "sustainedFailure");
            return this;
        }

        /** How long the delivery path may use a cached endpoint (state, URL, secrets). Default 1 s. */
        public Builder endpointCacheTtl(Duration endpointCacheTtl) {
            this.endpointCacheTtl = notNegative(endpointCacheTtl, "endpointCacheTtl");
            return this;
        }

        /**
         * Encryption at rest of endpoint signing secrets and header values, e.g. {@code
         * AesGcmSecretCipher.of(Map.of("2026-01", base64Key), "2026-01")}. Default {@link
         * SecretCipher#unconfigured()}: registering an endpoint fails until a key is configured or
         * {@link SecretCipher#plaintext()} is chosen explicitly; plain values stored earlier are read.
         */
        public Builder secretCipher(SecretCipher secretCipher) {
            this.secretCipher = Require.notNull(secretCipher, "secretCipher");
            return this;
        }

        public HttpDeliveryModule build() {
            return new HttpDeliveryModule(this);
        }

        private static int positive(int value, String name) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }

        private static Duration notNegative(Duration value, String name) {
            Require.notNull(value, name);
            if (value.isNegative()) {
                throw new IllegalArgumentException(name + " may not be negative, got " + value);
            }
            return value;
        }
    }
}
