package dev.postbox;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Everything known about one job: the answer to "what happened to job X".
 *
 * @param state scheduled, pending, retry, running, done, cancelled, expired or dead
 * @param resultJson what the attempt that completed the job returned ({@link JobOutcome#done(Object)}),
 *     as JSON; null for none (and for every job not done)
 * @param tags the labels given at enqueue ({@link JobRequest.Builder#tag}), by key; empty for none
 * @param timeLimitMillis the job's own time limit per attempt ({@link JobRequest.Builder#timeLimit}),
 *     null when it has none (its kind's or the engine's applies); not kept in the archive
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
        List<Attempt> history,
        @Nullable String resultJson,
        Map<String, String> tags,
        @Nullable Long timeLimitMillis) {

    public JobDetails {
        history = List.copyOf(history);
        tags = Map.copyOf(tags);
    }

    /** Details without a result, tags or time limit (as before they existed). */
    public JobDetails(
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
        this(
                id,
                queue,
                kind,
                state,
                attempts,
                maxAttempts,
                runAt,
                lastError,
                createdAt,
                finishedAt,
                payloadJson,
                history,
                null,
                Map.of(),
                null);
    }

    /**
     * One logged attempt.
     *
     * @param outcome done, retry, dead, released, lease_expired, unstarted, stale or timed_out (given
     *     up for its time limit: {@code detailJson} holds {@code timeLimitMs})
     * @param detailJson the attempt's details as a JSON object (a delivery's response, a timed-out
     *     attempt's limit), or null
     */
    public record Attempt(
            int attempt,
            @Nullable String worker,
            @Nullable Instant startedAt,
            Instant finishedAt,
            String outcome,
            @Nullable Integer statusCode,
            @Nullable String error,
            @Nullable Long durationMillis,
            @Nullable String detailJson) {

        /** An attempt without details (as before they were read). */
        public Attempt(
                int attempt,
                @Nullable String worker,
                @Nullable Instant startedAt,
                Instant finishedAt,
                String outcome,
                @Nullable Integer statusCode,
                @Nullable String error,
                @Nullable Long durationMillis) {
            this(attempt, worker, startedAt, finishedAt, outcome, statusCode, error, durationMillis, null);
        }
    }
}
