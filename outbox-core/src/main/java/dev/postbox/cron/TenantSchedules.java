package dev.postbox.cron;

import dev.postbox.TenantId;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The stored schedules of one tenant, from {@link ScheduleRegistry#forTenant(String)}: reading them
 * back, pausing and resuming them. Every statement is limited to the tenant's rows ({@code
 * coalesce(tenant, '') = ?}), so another tenant's schedule is not found and no pause reaches it.
 */
public final class TenantSchedules {

    private final ScheduleRegistry registry;
    private final @Nullable String tenant;
    private final String key;

    TenantSchedules(ScheduleRegistry registry, @Nullable String tenant) {
        this.registry = registry;
        this.tenant = tenant;
        this.key = TenantId.key(tenant);
    }

    /** The tenant id; empty for the default tenant. */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    /** The tenant's stored schedules in name order, each with its latest {@code historyLimit} fires. */
    public List<StoredSchedule> schedules(int historyLimit) {
        return registry.schedules(key, historyLimit);
    }

    /** One of the tenant's schedules; empty when the tenant has none of that name (another's included). */
    public Optional<StoredSchedule> schedule(String name, int historyLimit) {
        return registry.schedule(name, key, historyLimit);
    }

    /**
     * Pauses one of the tenant's schedules cluster-wide.
     *
     * @return false when it was already paused
     * @throws IllegalArgumentException when the tenant has no schedule of that name
     */
    public boolean pause(String name) {
        return registry.setPaused(name, key, true);
    }

    /**
     * Resumes one of the tenant's schedules; fires that fell due while it was paused follow its
     * missed-fire policy.
     *
     * @return false when it was not paused
     * @throws IllegalArgumentException when the tenant has no schedule of that name
     */
    public boolean resume(String name) {
        return registry.setPaused(name, key, false);
    }
}
