package dev.postbox;

import dev.postbox.internal.AdminStore;
import dev.postbox.internal.WakeUps;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Operations for the people on call: look a job up with its history, list, replay and purge dead
 * letters, cancel a waiting job, pause and resume queues, and read queue statistics. Every method
 * runs in its own short transaction.
 */
public final class PostboxAdmin {

    private final DataSource dataSource;
    private final AdminStore store;
    private final WakeUps wakeUps;

    PostboxAdmin(DataSource dataSource, AdminStore store, WakeUps wakeUps) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
        this.store = store;
        this.wakeUps = wakeUps;
    }

    /** The job with its state, payload and attempt history, wherever it is (live, archive, dead). */
    public Optional<JobDetails> job(long id) {
        return call(c -> store.job(c, id));
    }

    /**
     * The jobs of {@code tenant} (null: the default tenant) that carry every one of {@code tags} (and
     * maybe more), live, archived or dead, newest first: "every job of customer 42". Served by the
     * partial GIN indexes on the tags of each table (docs/schema.md).
     *
     * @param tags at least one tag, each as {@link JobRequest.Builder#tag} requires
     * @param limit 1 to 1000
     */
    public List<TaggedJob> jobsTagged(@Nullable String tenant, Map<String, String> tags, int limit) {
        String key = tenant == null ? "" : TenantId.validate(tenant, "tenant");
        checkTagSearch(tags, limit);
        return call(c -> store.jobsTagged(c, key, tags, limit));
    }

    /**
     * The jobs of every tenant that carry every one of {@code tags} (and maybe more), live, archived or
     * dead, newest first: {@link #jobsTagged} for an operator of the whole installation (the
     * console without a tenant filter). Served by the same indexes.
     *
     * @param tags at least one tag, each as {@link JobRequest.Builder#tag} requires
     * @param limit 1 to 1000
     */
    public List<TaggedJob> jobsTaggedInEveryTenant(Map<String, String> tags, int limit) {
        checkTagSearch(tags, limit);
        return call(c -> store.jobsTagged(c, null, tags, limit));
    }

    private static void checkTagSearch(Map<String, String> tags, int limit) {
        Require.notNull(tags, "tags");
        if (tags.isEmpty()) {
            throw new IllegalArgumentException("tags may not be empty: name at least one key=value to search by");
        }
        tags.forEach(dev.postbox.internal.JobTags::validate);
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000, was " + limit);
        }
    }

    /** Dead letters matching the filter, newest first. */
    public List<DeadLetter> deadLetters(DeadLetterFilter filter, int limit) {
        Require.positive(limit, "limit");
        return call(c -> store.deadLetters(c, Require.notNull(filter, "filter"), limit));
    }

    /** Number of dead letters. */
    public long deadLetterCount() {
        return call(store::deadLetterCount);
    }

    /** Number of dead letters matching the filter (what a replay or purge with it would touch now). */
    public long deadLetterCount(DeadLetterFilter filter) {
        return call(c -> store.deadLetterCount(c, Require.notNull(filter, "filter")));
    }

    /** Puts one dead letter back in its queue with a fresh attempt budget; false if not found. */
    public boolean replay(long id) {
        return replayed(call(c -> store.replay(c, id))) > 0;
    }

    /** Puts every matching dead letter back with a fresh attempt budget; returns how many. */
    public int replay(DeadLetterFilter filter) {
        return replayed(call(c -> store.replay(c, Require.notNull(filter, "filter"))));
    }

    /** Replayed jobs are committed (auto-commit): wake the workers as enqueue does. */
    private int replayed(int jobs) {
        if (jobs > 0) {
            wakeUps.committed();
        }
        return jobs;
    }

    /** Deletes matching dead letters for good; returns how many. */
    public int purge(DeadLetterFilter filter) {
        return call(c -> store.purge(c, Require.notNull(filter, "filter")));
    }

    /** Cancels a job that is waiting (not running); it is archived as cancelled. */
    public boolean cancel(long id) {
        return call(c -> store.cancel(c, id));
    }

    /**
     * Stops every worker from claiming this queue's jobs (running ones finish). The name must follow
     * {@link QueueNames}' rule.
     */
    public void pause(String queue) {
        call(c -> store.setPaused(c, QueueNames.require(queue, "queue"), true));
    }

    /** Lets workers claim this queue's jobs again. The name must follow {@link QueueNames}' rule. */
    public void resume(String queue) {
        call(c -> store.setPaused(c, QueueNames.require(queue, "queue"), false));
    }

    /**
     * Caps how many jobs of the queue run at once across all workers (claimed jobs count); null
     * removes the cap. Workers pick the change up within seconds. The name must follow {@link
     * QueueNames}' rule.
     */
    public void setMaxConcurrency(String queue, @Nullable Integer max) {
        if (max != null) {
            Require.positive(max, "max");
        }
        call(c -> store.setMaxConcurrency(c, QueueNames.require(queue, "queue"), max));
    }

    /**
     * The admin operations of one tenant: every read and write it makes is limited to the tenant's
     * rows, so an operation for tenant A never touches tenant B's jobs or dead letters.
     *
     * @param tenant the tenant id (see {@link TenantId}); use {@link #forDefaultTenant()} for jobs
     *     without a tenant
     */
    public TenantAdmin forTenant(String tenant) {
        return new TenantAdmin(this, TenantId.validate(tenant, "tenant"));
    }

    /** The admin operations of the default tenant (jobs enqueued without a tenant). */
    public TenantAdmin forDefaultTenant() {
        return new TenantAdmin(this, null);
    }

    /**
     * Statistics of the tenants with live jobs or settings, the worst first (the oldest due job), at
     * most {@code limit}.
     */
    public List<TenantStats> tenants(int limit) {
        Require.positive(limit, "limit");
        return call(c -> store.tenantStats(c, null, limit));
    }

    AdminStore store() {
        return store;
    }

    int wakeIfReplayed(int jobs) {
        return replayed(jobs);
    }

    <T> T callSql(SqlCall<T> call) {
        return call(call);
    }

    /** Statistics of every queue that has jobs, dead letters or configuration. */
    public List<QueueStats> queues() {
        return call(store::queueStats);
    }

    interface SqlCall<T> {
        T apply(Connection c) throws SQLException;
    }

    private <T> T call(SqlCall<T> call) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return call.apply(c);
        } catch (SQLException e) {
            throw new IllegalStateException("Postbox admin operation failed: " + e.getMessage(), e);
        }
    }
}
