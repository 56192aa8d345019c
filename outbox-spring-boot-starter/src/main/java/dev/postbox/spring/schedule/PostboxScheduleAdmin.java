package dev.postbox.spring.schedule;

import dev.postbox.cron.ScheduleFire;
import dev.postbox.cron.ScheduleRegistry;
import dev.postbox.cron.StoredSchedule;
import dev.postbox.cron.TenantSchedules;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Reads and controls the stored schedules for the {@code postbox} actuator endpoint and the console:
 * their definition, pause state and next fire, their recent fires with job ids and outcomes, and
 * pause/resume, all through the core's {@link ScheduleRegistry} (which holds the SQL). Usable
 * directly.
 */
public class PostboxScheduleAdmin {

    private final ScheduleRegistry registry;
    private final @Nullable TenantSchedules tenantSchedules;

    /** The schedules the registry stores. */
    public PostboxScheduleAdmin(ScheduleRegistry registry) {
        this(registry, null);
    }

    private PostboxScheduleAdmin(ScheduleRegistry registry, @Nullable TenantSchedules tenantSchedules) {
        this.registry = registry;
        this.tenantSchedules = tenantSchedules;
    }

    /**
     * The schedules the registry stores.
     *
     * @param dataSource not used: the registry reads the schedules from its own data source
     * @deprecated use {@link #PostboxScheduleAdmin(ScheduleRegistry)}
     */
    @Deprecated(forRemoval = true)
    public PostboxScheduleAdmin(DataSource dataSource, ScheduleRegistry registry) {
        this(registry);
    }

    /**
     * The same operations limited to one tenant's schedules, through the core's {@link
     * ScheduleRegistry#forTenant(String)}: another tenant's schedule is not found and no pause or
     * resume reaches it.
     *
     * @param tenant the tenant id; null for the default tenant
     * @throws IllegalArgumentException when {@code tenant} is not a valid tenant id
     */
    public PostboxScheduleAdmin forTenant(@Nullable String tenant) {
        return new PostboxScheduleAdmin(
                registry, tenant == null ? registry.forDefaultTenant() : registry.forTenant(tenant));
    }

    /** Every stored schedule by name, each with its latest {@code historyLimit} fires (newest first). */
    public List<ScheduleView> schedules(int historyLimit) {
        List<StoredSchedule> stored =
                tenantSchedules != null ? tenantSchedules.schedules(historyLimit) : registry.schedules(historyLimit);
        return stored.stream().map(ScheduleView::of).toList();
    }

    /** One stored schedule with its latest {@code historyLimit} fires; empty when there is none. */
    public Optional<ScheduleView> schedule(String name, int historyLimit) {
        Optional<StoredSchedule> stored = tenantSchedules != null
                ? tenantSchedules.schedule(name, historyLimit)
                : registry.schedule(name, historyLimit);
        return stored.map(ScheduleView::of);
    }

    /**
     * Pauses a schedule cluster-wide: no fires become jobs until it is resumed.
     *
     * @return false when it was already paused
     * @throws IllegalArgumentException when no schedule has that name
     */
    public boolean pause(String name) {
        return tenantSchedules != null ? tenantSchedules.pause(name) : registry.pause(name);
    }

    /**
     * Resumes a schedule; fires that fell due while it was paused follow its missed-fire policy.
     *
     * @return false when it was not paused
     * @throws IllegalArgumentException when no schedule has that name
     */
    public boolean resume(String name) {
        return tenantSchedules != null ? tenantSchedules.resume(name) : registry.resume(name);
    }

    /**
     * A stored schedule, as the endpoint shows it (the core's {@link StoredSchedule}, its policies by
     * name).
     *
     * @param nextFireAt the next fire not yet materialised (null: never fires again)
     * @param lastFireAt the latest fire materialised as a job
     * @param lastJobId that fire's job
     * @param recentFires the latest fires, newest first, with their jobs' current state
     * @param tenant the tenant its fires' jobs belong to, null for the default tenant
     */
    public record ScheduleView(
            String name,
            String cron,
            String zone,
            String kind,
            String queue,
            boolean paused,
            @Nullable Instant nextFireAt,
            @Nullable Instant lastFireAt,
            @Nullable Long lastJobId,
            String dstGapPolicy,
            String missedFirePolicy,
            String overlapPolicy,
            List<FireView> recentFires,
            @Nullable String tenant) {

        static ScheduleView of(StoredSchedule s) {
            return new ScheduleView(
                    s.name(),
                    s.cron(),
                    s.zone(),
                    s.kind(),
                    s.queue(),
                    s.paused(),
                    s.nextFireAt(),
                    s.lastFireAt(),
                    s.lastJobId(),
                    s.dstGapPolicy().name(),
                    s.missedFirePolicy().name(),
                    s.overlapPolicy().name(),
                    s.recentFires().stream().map(FireView::of).toList(),
                    s.tenant());
        }
    }

    /**
     * One materialised fire and its job, wherever the job is now.
     *
     * @param state pending, retry, running, done, cancelled, expired or dead
     * @param finishedAt when the job finished (archived or dead-lettered); null while live
     */
    public record FireView(
            @Nullable Instant fireAt,
            long jobId,
            String state,
            int attempts,
            @Nullable String lastError,
            @Nullable Instant createdAt,
            @Nullable Instant finishedAt) {

        static FireView of(ScheduleFire f) {
            return new FireView(
                    f.fireAt(), f.jobId(), f.state(), f.attempts(), f.lastError(), f.createdAt(), f.finishedAt());
        }
    }
}
