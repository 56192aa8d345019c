package dev.postbox;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A claimed job as a handler sees it: its payload, identity and attempt. Immutable.
 *
 * <p>{@link #toString()} leaves the payload out: payloads are not logged by default.
 */
public final class Job {

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

    /** A job of a legacy installation (or a test): its generated key is {@code postbox-<id>}. */
    public Job(
            long id,
            String queue,
            String kind,
            String payloadJson,
            @Nullable String idempotencyKey,
            @Nullable String orderingKey,
            @Nullable String endpoint,
            int attempt,
            int maxAttempts,
            Map<String, String> headers,
            Instant createdAt,
            JsonCodec codec) {
        this(
                id,
                queue,
                kind,
                payloadJson,
                idempotencyKey,
                orderingKey,
                endpoint,
                attempt,
                maxAttempts,
                headers,
                createdAt,
                codec,
                null);
    }

    /**
     * A job with the id of the installation that created it ({@code outbox_installation.id}), which
     * makes its {@link #generatedKey()} unique per installation and across sequence rewinds; null for a
     * job created before the installation id existed.
     */
    public Job(
            long id,
            String queue,
            String kind,
            String payloadJson,
            @Nullable String idempotencyKey,
            @Nullable String orderingKey,
            @Nullable String endpoint,
            int attempt,
            int maxAttempts,
            Map<String, String> headers,
            Instant createdAt,
            JsonCodec codec,
            @Nullable String installationId) {
        this(
                id,
                queue,
                kind,
                payloadJson,
                idempotencyKey,
                orderingKey,
                endpoint,
                attempt,
                maxAttempts,
                headers,
                createdAt,
                codec,
                installationId,
                null);
    }

    /**
     * A job of a tenant ({@code null}: the default tenant). A tenant job's {@link #stableKey()} with an
     * idempotency key is {@code <tenant>/<key>}, so two tenants' equal keys reach a shared receiver as
     * two deliveries.
     */
    public Job(
            long id,
            String queue,
            String kind,
            String payloadJson,
            @Nullable String idempotencyKey,
            @Nullable String orderingKey,
            @Nullable String endpoint,
            int attempt,
            int maxAttempts,
            Map<String, String> headers,
            Instant createdAt,
            JsonCodec codec,
            @Nullable String installationId,
            @Nullable String tenant) {
        this.tenant = tenant;
        this.id = id;
        this.queue = queue;
        this.kind = kind;
        this.payloadJson = payloadJson;
        this.idempotencyKey = idempotencyKey;
        this.orderingKey = orderingKey;
        this.endpoint = endpoint;
        this.attempt = attempt;
        this.maxAttempts = maxAttempts;
        this.headers = Map.copyOf(headers);
        this.createdAt = createdAt;
        this.codec = codec;
        this.installationId = installationId;
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
     * A key that is the same on every attempt of this job: the idempotency key when one was given
     * ({@code <tenant>/<key>} for a job of a named tenant, since keys are unique per tenant only),
     * otherwise the {@link #generatedKey()}. Send it to receivers so that they apply the effect once.
     */
    public String stableKey() {
        if (idempotencyKey == null) {
            return generatedKey();
        }
        return tenant == null ? idempotencyKey : tenant + "/" + idempotencyKey;
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
}
