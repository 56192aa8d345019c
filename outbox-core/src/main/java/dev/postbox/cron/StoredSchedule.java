package dev.postbox.cron;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A schedule as stored in {@code outbox_schedule}, with its latest fires: what {@link
 * ScheduleRegistry#schedules} reads back.
 *
 * @param zone the time zone id whose wall clock the cron expression follows
 * @param paused whether the schedule is paused cluster-wide (its fires create no jobs)
 * @param nextFireAt the next fire not yet materialised (null: never fires again)
 * @param lastFireAt the latest fire materialised as a job
 * @param lastJobId that fire's job
 * @param recentFires the latest fires, newest first, with their jobs' current state
 * @param tenant the tenant its fires' jobs belong to; null for the default tenant
 */
public record StoredSchedule(
        String name,
        String cron,
        String zone,
        String kind,
        String queue,
        boolean paused,
        @Nullable Instant nextFireAt,
        @Nullable Instant lastFireAt,
        @Nullable Long lastJobId,
        DstGapPolicy dstGapPolicy,
        MissedFirePolicy missedFirePolicy,
        OverlapPolicy overlapPolicy,
        List<ScheduleFire> recentFires,
        @Nullable String tenant) {

    public StoredSchedule {
        recentFires = List.copyOf(recentFires);
    }
}
