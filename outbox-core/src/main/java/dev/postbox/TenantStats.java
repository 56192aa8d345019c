package dev.postbox;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A tenant's state right now, over all queues.
 *
 * @param tenant the tenant id, null for the default tenant
 * @param due pending or retry jobs whose run time has come (claimable)
 * @param running jobs under a lease
 * @param oldestDueAge how long the tenant's oldest claimable job has been due (zero when none)
 * @param paused whether claiming the tenant's jobs is paused
 * @param maxRunning the tenant's cluster-wide cap on running jobs, null for none
 */
public record TenantStats(
        @Nullable String tenant,
        long due,
        long running,
        Duration oldestDueAge,
        boolean paused,
        @Nullable Integer maxRunning) {

    /** The tenant id; empty for the default tenant. */
    public Optional<String> tenantId() {
        return Optional.ofNullable(tenant);
    }
}
