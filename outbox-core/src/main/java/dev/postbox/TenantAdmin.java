package dev.postbox;

import dev.postbox.internal.AdminStore;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The admin operations of one tenant, from {@link PostboxAdmin#forTenant(String)}: job lookup, dead
 * letters (list, count, replay, purge), cancel, pause and resume, the cluster-wide cap on running jobs, the
 * webhook rate limit, and statistics. Every statement is limited to the tenant's rows ({@code coalesce(tenant, '') = ?}),
 * whatever the filter says, so an operation for one tenant cannot touch another's.
 */
public final class TenantAdmin {

    private final PostboxAdmin admin;
    private final AdminStore store;
    private final @Nullable String tenant;
    private final String key;

    TenantAdmin(PostboxAdmin admin, @Nullable String tenant) {
        this.admin = admin;
        this.store = admin.store();
        this.tenant = tenant;
        this.key = TenantId.key(tenant);
    }

    /** The tenant id; empty for the default tenant. */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    /**
     * One of the tenant's jobs with its attempt history, wherever it is (live, archived or dead);
     * empty when the tenant has no job with this id (another tenant's job included).
     */
    public Optional<JobDetails> job(long id) {
        return admin.callSql(c -> store.job(c, id, key));
    }

    /** The tenant's dead letters matching the filter, newest first. */
    public List<DeadLetter> deadLetters(DeadLetterFilter filter, int limit) {
        Require.positive(limit, "limit");
        return admin.callSql(c -> store.deadLetters(c, Require.notNull(filter, "filter"), key, limit));
    }

    /** Number of the tenant's dead letters matching the filter. */
    public long deadLetterCount(DeadLetterFilter filter) {
        return admin.callSql(c -> store.deadLetterCount(c, Require.notNull(filter, "filter"), key));
    }

    /** Replays one of the tenant's dead letters; false when the tenant has none with this id. */
    public boolean replay(long id) {
        return admin.wakeIfReplayed(admin.callSql(c -> store.replay(c, id, key))) > 0;
    }

    /** Replays the tenant's dead letters that match the filter; returns how many. */
    public int replay(DeadLetterFilter filter) {
        return admin.wakeIfReplayed(admin.callSql(c -> store.replay(c, Require.notNull(filter, "filter"), key)));
    }

    /** Deletes the tenant's dead letters that match the filter for good; returns how many. */
    public int purge(DeadLetterFilter filter) {
        return admin.callSql(c -> store.purge(c, Require.notNull(filter, "filter"), key));
    }

    /** Cancels one of the tenant's waiting jobs; false when the tenant has no waiting job with this id. */
    public boolean cancel(long id) {
        return admin.callSql(c -> store.cancel(c, id, key));
    }

    /**
     * Stops every worker from claiming this tenant's jobs (running ones finish); other tenants are
     * not affected. Workers see it at their next claim.
     */
    public void pause() {
        admin.callSql(c -> store.setTenantPaused(c, key, true));
    }

    public void resume() {
        admin.callSql(c -> store.setTenantPaused(c, key, false));
    }

    /**
     * Caps how many of the tenant's jobs run at once across all workers (claimed jobs count); null
     * removes the cap. Workers pick the change up within seconds; a tenant at its cap waits without
     * holding a worker.
     */
    public void setMaxRunning(@Nullable Integer max) {
        if (max != null) {
            Require.positive(max, "max");
        }
        admin.callSql(c -> store.setTenantMaxRunning(c, key, max));
    }

    /**
     * Limits the tenant's webhook deliveries (all its endpoints together, on top of each endpoint's own
     * limit) to {@code perSecond} with a bucket of {@code burst}, cluster-wide: every process draws
     * from one token bucket, as for an endpoint's limit. A delivery without a permit waits without
     * spending an attempt. Needs postbox-delivery-http; its processes pick a change up within seconds.
     *
     * @param perSecond permits per second (may be fractional), positive and finite
     * @param burst the bucket's capacity, at least 1
     */
    public void setWebhookRate(double perSecond, int burst) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("perSecond must be positive and finite, was " + perSecond);
        }
        Require.positive(burst, "burst");
        admin.callSql(c -> store.setTenantWebhookRate(c, key, perSecond, burst));
    }

    /** Removes the tenant's webhook rate limit (each endpoint's own limit still applies). */
    public void removeWebhookRate() {
        admin.callSql(c -> store.setTenantWebhookRate(c, key, null, null));
    }

    /** The tenant's statistics (zero counts when it has no live job). */
    public TenantStats stats() {
        List<TenantStats> stats = admin.callSql(c -> store.tenantStats(c, key, 1));
        return stats.isEmpty() ? new TenantStats(tenant, 0, 0, java.time.Duration.ZERO, false, null) : stats.get(0);
    }
}
