package dev.postbox;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A job found by its tags ({@link PostboxAdmin#jobsTagged}), live, archived or dead; {@link
 * PostboxAdmin#job} has the rest of it.
 *
 * @param state pending, retry or running (live); done, cancelled or expired (archived); dead
 * @param tenant the job's tenant, null for the default tenant
 * @param finishedAt when it finished or died; null while live
 */
public record TaggedJob(
        long id,
        String queue,
        String kind,
        String state,
        @Nullable String tenant,
        Map<String, String> tags,
        Instant createdAt,
        @Nullable Instant finishedAt) {

    public TaggedJob {
        tags = Map.copyOf(tags);
    }
}
