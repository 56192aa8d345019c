package dev.postbox;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything known about one job: the answer to "what happened to job X".
 *
 * @param state scheduled, pending, retry, running, done, cancelled, expired or dead
 */
public record JobDetails(
        long id,
        String queue,
        String kind,
        String state,
        int attempts,
        int maxAttempts,
        @Nullable Instant runAt,
        @Nullable String lastError,
        Instant createdAt,
        @Nullable Instant finishedAt,
        @Nullable String payloadJson,
        List<Attempt> history) {

    /** One logged attempt. */
    public record Attempt(
            int attempt,
            @Nullable String worker,
            @Nullable Instant startedAt,
            Instant finishedAt,
            String outcome,
            @Nullable Integer statusCode,
            @Nullable String error,
            @Nullable Long durationMillis) {}
}
