package dev.postbox;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What to enqueue: a kind, a payload and options. Immutable; build it with {@link #of(String,
 * Object)}, {@link #ofJson(String, String)} or {@link #builder(String)}.
 *
 * <pre>{@code
 * outbox.enqueue(JobRequest.builder("reserve-stock")
 *         .payload(new Reservation(orderId, sku))
 *         .idempotencyKey("reserve-" + orderId)
 *         .orderingKey("order-" + orderId)
 *         .delay(Duration.ofSeconds(5))
 *         .build());
 * }</pre>
 */
public final class JobRequest {

    /** The queue used when none is given. */
    public static final String DEFAULT_QUEUE = "default";
    /** Lowest allowed priority. */
    public static final int MIN_PRIORITY = -100;
    /** Highest allowed priority. */
    public static final int MAX_PRIORITY = 100;
    /**
     * Longest queue name, in characters. Queue names are indexed (claim index, {@code outbox_queue}
     * primary key); a B-tree entry may not exceed about 2,700 bytes.
     */
    public static final int MAX_QUEUE_LENGTH = 100;
    /** Longest job kind, in characters (indexed with the dead letters' error fingerprint). */
    public static final int MAX_KIND_LENGTH = 200;
    /**
     * Longest idempotency, ordering or fire key, in characters. The keys are indexed; 500 characters
     * are at most 1,500 bytes in UTF-8, well inside PostgreSQL's B-tree entry limit of about 2,700
     * bytes. Hash a longer natural key (e.g. SHA-256, hex) to make it fit.
     */
    public static final int MAX_KEY_LENGTH = 500;

    /** Most tags one job may carry. */
    public static final int MAX_TAGS = 10;

    /** Longest tag key: letters, digits, '.', '_' and '-', starting with a letter or a digit. */
    public static final int MAX_TAG_KEY_LENGTH = 64;

    /** Longest tag value: printable text (no control characters). */
    public static final int MAX_TAG_VALUE_LENGTH = 200;

    /** Longest time limit per attempt a job may set (it is stored in milliseconds as an integer). */
    public static final int MAX_TIME_LIMIT_DAYS = 24;

    private final String queue;
    private final String kind;
    private final @Nullable Object payload;
    private final @Nullable String rawJson;
    private final @Nullable String idempotencyKey;
    private final @Nullable String orderingKey;
    private final @Nullable String endpoint;
    private final @Nullable String fireKey;
    private final int priority;
    private final @Nullable Instant runAt;
    private final Duration delay;
    private final @Nullable Integer maxAttempts;
    private final @Nullable Instant expiresAt;
    private final @Nullable Duration timeLimit;
    private final Map<String, String> headers;
    private final Map<String, String> tags;
    private final @Nullable String tenant;

    private JobRequest(Builder b) {
        this.queue = QueueNames.require(name(b.queue, "queue", MAX_QUEUE_LENGTH), "queue");
        this.kind = name(b.kind, "kind", MAX_KIND_LENGTH);
        if (b.payload == null && b.rawJson == null) {
            throw new IllegalArgumentException("payload may not be null: pass an object or raw JSON for job kind '"
                    + b.kind + "' (use Map.of() for an empty payload)");
        }
        this.payload = b.payload;
        this.rawJson = b.rawJson;
        this.idempotencyKey = key(blankToNull(b.idempotencyKey, "idempotencyKey"), "idempotencyKey");
        this.orderingKey = key(blankToNull(b.orderingKey, "orderingKey"), "orderingKey");
        this.endpoint = b.endpoint == null ? null : name(b.endpoint, "endpoint", MAX_KIND_LENGTH);
        this.fireKey = key(b.fireKey, "fireKey");
        if (b.priority < MIN_PRIORITY || b.priority > MAX_PRIORITY) {
            throw new IllegalArgumentException(
                    "priority must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY + ", was " + b.priority);
        }
        this.priority = b.priority;
        this.runAt = b.runAt;
        this.delay = Require.notNegative(b.delay, "delay");
        if (b.runAt != null && !b.delay.isZero()) {
            throw new IllegalArgumentException("runAt and delay may not both be set: choose one");
        }
        if (b.maxAttempts != null) {
            Require.positive(b.maxAttempts, "maxAttempts");
        }
        this.maxAttempts = b.maxAttempts;
        this.expiresAt = b.expiresAt;
        this.timeLimit = b.timeLimit;
        this.headers = Map.copyOf(b.headers);
        if (b.tags.size() > MAX_TAGS) {
            throw new IllegalArgumentException("a job may carry at most " + MAX_TAGS + " tags, this one has "
                    + b.tags.size() + " (" + b.tags.keySet() + "): keep the ones you search by");
        }
        this.tags = Map.copyOf(b.tags);
        this.tenant = b.tenant == null ? null : TenantId.validate(b.tenant, "tenant");
    }

    private static String name(String value, String what, int max) {
        Require.notBlank(value, what);
        if (value.length() > max) {
            throw new IllegalArgumentException(what + " is " + value.length() + " characters long, more than the " + max
                    + " allowed (it is indexed): use a shorter name");
        }
        noControlCharacters(value, what);
        return value;
    }

    private static @Nullable String key(@Nullable String value, String what) {
        if (value == null) {
            return null;
        }
        if (value.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException(what + " is " + value.length() + " characters long, more than the "
                    + MAX_KEY_LENGTH + " allowed (it is indexed): hash a longer natural key (e.g. SHA-256 in hex)");
        }
        noControlCharacters(value, what);
        return value;
    }

    /**
     * Control characters (CR, LF, NUL, ...) cannot be stored (NUL) or sent in a header (CR, LF:
     * keys travel as {@code Idempotency-Key} / {@code webhook-id}): refused up front.
     */
    private static void noControlCharacters(String value, String what) {
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (Character.isISOControl(ch)) {
                throw new IllegalArgumentException(String.format(
                        "%s has the control character U+%04X at index %d: keys and names may not contain control"
                                + " characters (CR, LF, NUL, ...), which cannot be stored or sent in a header",
                        what, (int) ch, i));
            }
        }
    }

    private static @Nullable String blankToNull(@Nullable String value, String name) {
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException(name + " may not be blank: leave it unset instead");
        }
        return value;
    }

    /** A job of the given kind whose payload object is serialised to JSON. */
    public static JobRequest of(String kind, Object payload) {
        return builder(kind).payload(payload).build();
    }

    /** A job of the given kind whose payload is already a JSON document. */
    public static JobRequest ofJson(String kind, String json) {
        return builder(kind).rawJson(json).build();
    }

    /** Starts a builder for a job of the given kind. */
    public static Builder builder(String kind) {
        return new Builder(kind);
    }

    /** A builder preset with this request's values. */
    public Builder toBuilder() {
        Builder b = new Builder(kind);
        b.queue = queue;
        b.payload = payload;
        b.rawJson = rawJson;
        b.idempotencyKey = idempotencyKey;
        b.orderingKey = orderingKey;
        b.endpoint = endpoint;
        b.fireKey = fireKey;
        b.priority = priority;
        b.runAt = runAt;
        b.delay = delay;
        b.maxAttempts = maxAttempts;
        b.expiresAt = expiresAt;
        b.timeLimit = timeLimit;
        b.headers.putAll(headers);
        b.tags.putAll(tags);
        b.tenant = tenant;
        return b;
    }

    public String queue() {
        return queue;
    }

    public String kind() {
        return kind;
    }

    /** The payload object, when the request was built from an object. */
    public Optional<Object> payload() {
        return Optional.ofNullable(payload);
    }

    /** The payload JSON, when the request was built from raw JSON. */
    public Optional<String> rawJson() {
        return Optional.ofNullable(rawJson);
    }

    public Optional<String> idempotencyKey() {
        return Optional.ofNullable(idempotencyKey);
    }

    public Optional<String> orderingKey() {
        return Optional.ofNullable(orderingKey);
    }

    /** The HTTP endpoint this job delivers to, for delivery jobs. */
    public Optional<String> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /** The schedule fire this job materialises, for cron jobs. */
    public Optional<String> fireKey() {
        return Optional.ofNullable(fireKey);
    }

    public int priority() {
        return priority;
    }

    public Optional<Instant> runAt() {
        return Optional.ofNullable(runAt);
    }

    public Duration delay() {
        return delay;
    }

    public Optional<Integer> maxAttempts() {
        return Optional.ofNullable(maxAttempts);
    }

    public Optional<Instant> expiresAt() {
        return Optional.ofNullable(expiresAt);
    }

    /**
     * The job's tags: labels to find it by ({@link PostboxAdmin#jobsTagged}), by key; empty for none.
     */
    public Map<String, String> tags() {
        return tags;
    }

    /** The job's own time limit per attempt; empty: its kind's, else the engine's. */
    public Optional<Duration> timeLimit() {
        return Optional.ofNullable(timeLimit);
    }

    public Map<String, String> headers() {
        return headers;
    }

    /**
     * The tenant the job belongs to; empty for the default tenant. Idempotency and ordering keys are
     * unique per tenant, and claims are fair across tenants (docs/tenants.md).
     */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    @Override
    public String toString() {
        // The payload is deliberately left out: payloads are not logged by default.
        return "JobRequest[queue=" + queue + ", kind=" + kind + (tenant == null ? "" : ", tenant=" + tenant)
                + ", idempotencyKey=" + idempotencyKey + ", orderingKey="
                + orderingKey + ", priority=" + priority + "]";
    }

    /** Builds a {@link JobRequest}; every setter validates its argument. */
    public static final class Builder {
        private String queue = DEFAULT_QUEUE;
        private final String kind;
        private @Nullable Object payload;
        private @Nullable String rawJson;
        private @Nullable String idempotencyKey;
        private @Nullable String orderingKey;
        private @Nullable String endpoint;
        private @Nullable String fireKey;
        private int priority;
        private @Nullable Instant runAt;
        private Duration delay = Duration.ZERO;
        private @Nullable Integer maxAttempts;
        private @Nullable Instant expiresAt;
        private @Nullable Duration timeLimit;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private final Map<String, String> tags = new LinkedHashMap<>();
        private @Nullable String tenant;

        private Builder(String kind) {
            this.kind = Require.notBlank(kind, "kind");
        }

        public Builder queue(String queue) {
            this.queue = Require.notBlank(queue, "queue");
            return this;
        }

        /** The payload object, serialised with the engine's {@link JsonCodec}. */
        public Builder payload(Object payload) {
            this.payload = Require.notNull(payload, "payload");
            this.rawJson = null;
            return this;
        }

        /** The payload as a JSON document; it is validated at enqueue. */
        public Builder rawJson(String json) {
            this.rawJson = Require.notNull(json, "rawJson");
            this.payload = null;
            return this;
        }

        /** Enqueueing twice with one key within the dedup window yields one job. */
        public Builder idempotencyKey(@Nullable String key) {
            this.idempotencyKey = key;
            return this;
        }

        /** Jobs sharing an ordering key run one at a time, in enqueue order. */
        public Builder orderingKey(@Nullable String key) {
            this.orderingKey = key;
            return this;
        }

        public Builder endpoint(@Nullable String endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        public Builder fireKey(@Nullable String fireKey) {
            this.fireKey = fireKey;
            return this;
        }

        /**
         * From -100 to 100, default 0. A job of priority p is claimed as if it had become due p
         * seconds earlier, so higher priorities go first and lower ones still get their turn.
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /** Earliest run time; the database compares it with its own clock. */
        public Builder runAt(@Nullable Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        /** Run no earlier than this long after the enqueue (database clock). */
        public Builder delay(Duration delay) {
            this.delay = Require.notNegative(delay, "delay");
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Require.positive(maxAttempts, "maxAttempts");
            return this;
        }

        /** A job still unstarted at this instant is not run; it is archived as expired. */
        public Builder expiresAt(@Nullable Instant expiresAt) {
            this.expiresAt = expiresAt;
            return this;
        }

        /**
         * The time limit of each attempt of this job, over its kind's ({@link
         * HandlerRegistration#timeLimit}) and the engine's ({@link PostboxConfig.Builder#attemptTimeLimit});
         * stored with the job only when set. Whole milliseconds, at most {@value #MAX_TIME_LIMIT_DAYS}
         * days; null: none of its own.
         */
        public Builder timeLimit(@Nullable Duration timeLimit) {
            if (timeLimit != null) {
                Require.positive(timeLimit, "timeLimit");
                if (timeLimit.toMillis() < 1 || timeLimit.compareTo(Duration.ofDays(MAX_TIME_LIMIT_DAYS)) > 0) {
                    throw new IllegalArgumentException(
                            "timeLimit must be between 1 ms and " + MAX_TIME_LIMIT_DAYS + " days, was " + timeLimit);
                }
            }
            this.timeLimit = timeLimit;
            return this;
        }

        /**
         * A tag: a label to find the job by, live, archived or dead ({@link PostboxAdmin#jobsTagged},
         * within its tenant). Keys are 1 to {@value JobRequest#MAX_TAG_KEY_LENGTH} letters, digits, '.',
         * '_' or '-' (starting with a letter or a digit), values 1 to {@value
         * JobRequest#MAX_TAG_VALUE_LENGTH} printable characters; at most {@value JobRequest#MAX_TAGS}
         * tags. A job without tags stores none and adds nothing to the tag indexes. Not for secrets or
         * personal data: tags are shown and searchable.
         */
        public Builder tag(String key, String value) {
            dev.postbox.internal.JobTags.validate(key, value);
            tags.put(key, value);
            return this;
        }

        /** Several tags; see {@link #tag}. */
        public Builder tags(Map<String, String> tags) {
            Require.notNull(tags, "tags").forEach(this::tag);
            return this;
        }

        /** A header carried with the job; names and values may not contain NUL (jsonb cannot store it). */
        public Builder header(String name, String value) {
            Require.notBlank(name, "header name");
            Require.notNull(value, "header value");
            if (name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("job header '" + name.replace('\0', '?')
                        + "' contains the character U+0000 (NUL), which PostgreSQL cannot store: remove it");
            }
            headers.put(name, value);
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            headers.forEach(this::header);
            return this;
        }

        /**
         * The tenant the job belongs to, null for the default tenant. A tenant id is 1 to {@value
         * TenantId#MAX_LENGTH} letters, digits, '.', '_' or '-' (see {@link TenantId}).
         */
        public Builder tenant(@Nullable String tenant) {
            this.tenant = tenant == null ? null : TenantId.validate(tenant, "tenant");
            return this;
        }

        public JobRequest build() {
            return new JobRequest(this);
        }
    }
}
