package dev.postbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** A dead-lettered job (payload left out; read it with {@link PostboxAdmin#job(long)} when needed). */
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
        Instant deadAt) {}
