package dev.postbox.cron;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One materialised fire of a schedule and its job, wherever the job is now (live, archived or
 * dead), as the view {@code outbox_schedule_fire} shows it.
 *
 * @param state pending, retry, running, done, cancelled, expired or dead
 * @param lastError the job's latest error, if any
 * @param finishedAt when the job finished (archived or dead-lettered); null while live
 */
public record ScheduleFire(
        Instant fireAt,
        long jobId,
        String state,
        int attempts,
        @Nullable String lastError,
        Instant createdAt,
        @Nullable Instant finishedAt) {}
