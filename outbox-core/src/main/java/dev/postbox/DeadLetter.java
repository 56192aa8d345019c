package dev.postbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A dead-lettered job (payload left out; read it with {@link PostboxAdmin#job(long)} when needed).
 *
 * @param tenant the job's tenant, null for the default tenant
 */
public record DeadLetter(
        long id,
        String queue,
        String kind,
        @Nullable String endpoint,
        @Nullable String idempotencyKey,
        int attempts,
        int maxAttempts,
        @Nullable String lastError,
        Instant createdAt,
        Instant deadAt,
        @Nullable String tenant) {

    /** A dead letter without its tenant (as before it was read). */
    public DeadLetter(
            long id,
            String queue,
            String kind,
            @Nullable String endpoint,
            @Nullable String idempotencyKey,
            int attempts,
            int maxAttempts,
            @Nullable String lastError,
            Instant createdAt,
            Instant deadAt) {
        this(id, queue, kind, endpoint, idempotencyKey, attempts, maxAttempts, lastError, createdAt, deadAt, null);
    }
}
