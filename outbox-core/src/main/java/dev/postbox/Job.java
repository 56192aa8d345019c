package dev.postbox;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A claimed job as a handler sees it: its payload, identity and attempt. Immutable.
 *
 * <p>{@link #toString()} leaves the payload out: payloads are not logged by default.
 */
public final class Job {

    /** The form of every {@link #generatedKey()}: a caller's key of this form is sent escaped. */
    private static final Pattern GENERATED_FORM = Pattern.compile("postbox-[0-9a-z-]*");

    private final long id;
    private final String queue;
    private final String kind;
    private final String payloadJson;
    private final @Nullable String idempotencyKey;
    private final @Nullable String orderingKey;
    private final @Nullable String endpoint;
    private final int attempt;
    private final int maxAttempts;
    private final Map<String, String> headers;
    private final Instant createdAt;
    private final JsonCodec codec;
    private final @Nullable String installationId;
    private final @Nullable String tenant;
    private final @Nullable Duration timeLimit;
    private final long deadlineNanos;

    private Job(Builder b) {
        this.id = b.id;
        this.queue = b.queue;
        this.kind = b.kind;
        this.payloadJson = b.payloadJson;
        this.idempotencyKey = b.idempotencyKey;
        this.orderingKey = b.orderingKey;
        this.endpoint = b.endpoint;
        this.attempt = b.attempt;
        this.maxAttempts = b.maxAttempts;
        this.headers = b.headers;
        this.createdAt = b.createdAt;
        this.codec = b.codec;
        this.installationId = b.installationId;
        this.tenant = b.tenant;
        this.timeLimit = b.timeLimit;
        this.deadlineNanos = b.deadlineNanos;
    }

    /**
     * A builder of a job as the engine hands it to a handler: for a test of a handler, or a wrapper
     * that passes on a changed copy ({@link #toBuilder()}). Defaults: queue {@value
     * JobRequest#DEFAULT_QUEUE}, attempt 1 of 1, no keys, endpoint or headers, created now, the
     * default tenant, no installation id.
     *
     * <pre>{@code
     * Job job = Job.builder(42, "order.created", "{\"orderId\":7}", JsonCodec.jackson())
     *         .idempotencyKey("order-7-created")
     *         .attempt(2, 5)
     *         .build();
     * handler.handle(job);
     * }</pre>
     *
     * @param codec the codec that {@link #payload(Class)} reads the payload with
     */
    public static Builder builder(long id, String kind, String payloadJson, JsonCodec codec) {
        return new Builder(id, kind, payloadJson, codec);
    }

    /** A builder holding this job's values, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder(id, kind, payloadJson, codec)
                .queue(queue)
                .idempotencyKey(idempotencyKey)
                .orderingKey(orderingKey)
                .endpoint(endpoint)
                .attempt(attempt, maxAttempts)
                .headers(headers)
                .createdAt(createdAt)
                .installationId(installationId)
                .tenant(tenant)
                .deadline(timeLimit, deadlineNanos);
    }

    /**
     * The time limit of this attempt (the job's own, else its kind's, else the engine's); empty when
     * it has none. Past it the engine gives the attempt up and interrupts the handler.
     */
    public Optional<Duration> timeLimit() {
        return Optional.ofNullable(timeLimit);
    }

    /**
     * What is left of this attempt's time limit (zero once it has passed); empty when it has none. A
     * handler that calls out passes it on as the call's timeout when it is shorter than the call's
     * own, so that the call never runs past the attempt:
     *
     * <pre>{@code
     * Duration timeout = job.timeLeft().filter(left -> left.compareTo(ownTimeout) < 0).orElse(ownTimeout);
     * }</pre>
     */
    public Optional<Duration> timeLeft() {
        if (timeLimit == null) {
            return Optional.empty();
        }
        long left = deadlineNanos - System.nanoTime();
        return Optional.of(left > 0 ? Duration.ofNanos(left) : Duration.ZERO);
    }

    public long id() {
        return id;
    }

    public String queue() {
        return queue;
    }

    public String kind() {
        return kind;
    }

    /** The payload as stored, a JSON document. */
    public String payloadJson() {
        return payloadJson;
    }

    /** The payload read into the given type with the engine's {@link JsonCodec}. */
    public <T> T payload(Class<T> type) {
        return codec.fromJson(payloadJson, type);
    }

    public Optional<String> idempotencyKey() {
        return Optional.ofNullable(idempotencyKey);
    }

    /**
     * A key that is the same on every attempt of this job, sent to receivers (as {@code webhook-id},
     * the broker's message id, {@code postbox-key}) so that they apply the effect once. No two jobs
     * get the same one unless they have the same tenant and idempotency key:
     *
     * <ul>
     *   <li>without an idempotency key: the {@link #generatedKey()}, {@code postbox-} followed by
     *       lowercase letters, digits and {@code -} only;
     *   <li>a named tenant's key: {@code <tenant>/<key>}, the tenant id with each {@code .} written as
     *       {@code %2E} (a {@code .} cannot appear in a {@code webhook-id}, it delimits the signed
     *       content; tenant ids hold no {@code /} or {@code %});
     *   <li>a key of the default tenant that holds a {@code /} or has the form of a generated key:
     *       {@code /<key>} (its empty tenant part is no tenant's);
     *   <li>any other key of the default tenant: the key as given.
     * </ul>
     *
     * <p>So a receiver reads one back by its first {@code /}: at the start, the default tenant's key
     * follows; elsewhere, the tenant precedes it; none, a generated key ({@code postbox-…}) or the
     * default tenant's key.
     */
    public String stableKey() {
        return idempotencyKey == null ? generatedKey() : stableKey(tenant, idempotencyKey);
    }

    /** What a key written by the caller is sent as: see {@link #stableKey()}. */
    static String stableKey(@Nullable String tenant, String idempotencyKey) {
        if (tenant != null) {
            return tenant.replace(".", "%2E") + "/" + idempotencyKey;
        }
        if (idempotencyKey.indexOf('/') >= 0
                || GENERATED_FORM.matcher(idempotencyKey).matches()) {
            return "/" + idempotencyKey;
        }
        return idempotencyKey;
    }

    /** The tenant the job belongs to; empty for the default tenant. */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    /**
     * A key Postbox derives for this job whatever its idempotency key, the same on every attempt and
     * never the same for two jobs: {@code postbox-<installation>-<id>-<created_at in microseconds, base
     * 36>}, unique across installations and across a rewind of the job id sequence (restore from
     * backup). A job created before the installation id existed (schema V8) keeps {@code
     * postbox-<id>}, the key it may already have been sent with.
     */
    public String generatedKey() {
        if (installationId == null) {
            return "postbox-" + id;
        }
        long micros =
                Math.addExact(Math.multiplyExact(createdAt.getEpochSecond(), 1_000_000L), createdAt.getNano() / 1000);
        return "postbox-" + installationId + "-" + id + "-" + Long.toString(micros, 36);
    }

    /** The installation that created this job, empty for a job older than the installation id. */
    public Optional<String> installationId() {
        return Optional.ofNullable(installationId);
    }

    public Optional<String> orderingKey() {
        return Optional.ofNullable(orderingKey);
    }

    public Optional<String> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /** This attempt's number, starting at 1. */
    public int attempt() {
        return attempt;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** {@code true} when a failure of this attempt dead-letters the job. */
    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public Instant createdAt() {
        return createdAt;
    }

    @Override
    public String toString() {
        return "Job[id=" + id + ", queue=" + queue + ", kind=" + kind + (tenant == null ? "" : ", tenant=" + tenant)
                + ", attempt=" + attempt + "/" + maxAttempts
                + "]";
    }

    /** Builds a {@link Job}; every setter checks its argument. */
    public static final class Builder {
        private final long id;
        private final String kind;
        private final String payloadJson;
        private final JsonCodec codec;
        private String queue = JobRequest.DEFAULT_QUEUE;
        private @Nullable String idempotencyKey;
        private @Nullable String orderingKey;
        private @Nullable String endpoint;
        private int attempt = 1;
        private int maxAttempts = 1;
        private Map<String, String> headers = Map.of();
        private Instant createdAt = Instant.now();
        private @Nullable String installationId;
        private @Nullable String tenant;
        private @Nullable Duration timeLimit;
        private long deadlineNanos;

        // Only null is refused: the engine builds claimed jobs with this builder, and a row written by
        // hand with a blank kind or queue must reach the handler lookup (an unknown kind waits and is
        // offered again, visible in the admin), not fail every claim that returns it.
        private Builder(long id, String kind, String payloadJson, JsonCodec codec) {
            this.id = id;
            this.kind = Require.notNull(kind, "kind");
            this.payloadJson = Require.notNull(payloadJson, "payloadJson");
            this.codec = Require.notNull(codec, "codec");
        }

        public Builder queue(String queue) {
            this.queue = Require.notNull(queue, "queue");
            return this;
        }

        /** The idempotency key given at enqueue; null for none. */
        public Builder idempotencyKey(@Nullable String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public Builder orderingKey(@Nullable String orderingKey) {
            this.orderingKey = orderingKey;
            return this;
        }

        /** The webhook endpoint the job delivers to; null for none. */
        public Builder endpoint(@Nullable String endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        /**
         * This attempt's number and the job's attempt budget.
         *
         * @throws IllegalArgumentException unless {@code 1 <= attempt} and {@code 1 <= maxAttempts}
         */
        public Builder attempt(int attempt, int maxAttempts) {
            if (attempt < 1 || maxAttempts < 1) {
                throw new IllegalArgumentException(
                        "attempt and maxAttempts must be at least 1, got " + attempt + " of " + maxAttempts);
            }
            this.attempt = attempt;
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            this.headers = Map.copyOf(Require.notNull(headers, "headers"));
            return this;
        }

        public Builder createdAt(Instant createdAt) {
            this.createdAt = Require.notNull(createdAt, "createdAt");
            return this;
        }

        /**
         * The id of the installation that created the job ({@code outbox_installation.id}), which makes
         * its {@link #generatedKey()} unique per installation and across sequence rewinds; null for a
         * job created before the installation id existed (its generated key is {@code postbox-<id>}).
         */
        public Builder installationId(@Nullable String installationId) {
            this.installationId = installationId;
            return this;
        }

        /**
         * The tenant ({@code null}: the default tenant). A tenant job's {@link #stableKey()} with an
         * idempotency key is {@code <tenant>/<key>} (a {@code .} of the tenant written as {@code %2E}),
         * so two tenants' equal keys reach a shared receiver as two deliveries.
         */
        public Builder tenant(@Nullable String tenant) {
            this.tenant = tenant;
            return this;
        }

        /**
         * The attempt's time limit, counted from now: {@link Job#timeLeft()} runs down from it. Null:
         * none.
         */
        public Builder timeLimit(@Nullable Duration timeLimit) {
            return deadline(
                    timeLimit == null ? null : Require.positive(timeLimit, "timeLimit"),
                    timeLimit == null ? 0 : System.nanoTime() + timeLimit.toNanos());
        }

        private Builder deadline(@Nullable Duration timeLimit, long deadlineNanos) {
            this.timeLimit = timeLimit;
            this.deadlineNanos = deadlineNanos;
            return this;
        }

        public Job build() {
            return new Job(this);
        }
    }
}
