package dev.postbox.spring.metrics;

/**
 * The names and tags of the meters Postbox registers (docs/operations.md, "Metrics"). In Prometheus the dots become
 * underscores, counters get {@code _total} and timers {@code _seconds_count|_sum|_max|_bucket}.
 */
public final class PostboxMetrics {

    /** Counter of enqueue calls; tags {@code queue}, {@code kind}, {@code outcome} (created|duplicate). */
    public static final String JOBS_ENQUEUED = "postbox.jobs.enqueued";

    /** Counter of claimed jobs; tag {@code queue} (the engine claims in batches per queue). */
    public static final String JOBS_CLAIMED = "postbox.jobs.claimed";

    /** Counter of successful attempts; tags {@code queue}, {@code kind}, {@code outcome} (success). */
    public static final String JOBS_COMPLETED = "postbox.jobs.completed";

    /**
     * Counter of failed attempts that will be retried; tags {@code queue}, {@code kind}, {@code
     * outcome} (retry), {@code exception} (simple class name).
     */
    public static final String JOBS_FAILED = "postbox.jobs.failed";

    /**
     * Counter of dead-lettered jobs; tags {@code queue}, {@code kind}, {@code outcome} (exhausted: the
     * last attempt failed; permanent: a {@code PermanentJobFailure} before the budget was spent).
     */
    public static final String JOBS_DEAD = "postbox.jobs.dead";

    /** Counter of jobs put back without spending an attempt; tags {@code queue}, {@code kind}. */
    public static final String JOBS_SNOOZED = "postbox.jobs.snoozed";

    /** Counter of claims of a kind without a handler in this process; tags {@code queue}, {@code kind}. */
    public static final String JOBS_UNKNOWN_KIND = "postbox.jobs.unknown.kind";

    /**
     * Counter of operations refused because their fencing token was stale (the lease had moved to
     * another worker); tag {@code operation} (complete|fail|dead).
     */
    public static final String JOBS_STALE_TOKENS = "postbox.jobs.stale.tokens";

    /** Timer of successful attempts; tags {@code queue}, {@code kind}, {@code outcome} (success). */
    public static final String JOB_DURATION = "postbox.job.duration";

    /**
     * Counter of expired leases handled by the rescuer; tag {@code outcome}: {@code retried} (a
     * started attempt, charged), {@code dead} (budget spent), {@code unstarted} (the attempt had not started: returned without charge; a crashed
     * worker's prefetched jobs).
     */
    public static final String LEASES_RESCUED = "postbox.leases.rescued";

    /** Gauge of jobs per queue and state; tags {@code queue}, {@code state} (due|scheduled|running). */
    public static final String QUEUE_DEPTH = "postbox.queue.depth";

    /** Gauge, in seconds, of how long the oldest claimable job of a queue has been due: the SLO. */
    public static final String QUEUE_OLDEST_AGE = "postbox.queue.oldest.age";

    /**
     * Gauge, in seconds, of how long the oldest claimable job of a tenant has been due, for the worst
     * {@code postbox.metrics.tenants} tenants; tag {@code tenant}: the tenant id, {@value
     * #DEFAULT_TENANT_TAG} for the default tenant, and {@value #OTHER_TENANTS_TAG} for the worst of
     * the rest (so the tag takes at most that many values plus two).
     */
    public static final String TENANT_OLDEST_AGE = "postbox.tenant.oldest.age";

    /** The {@code tenant} tag of the default tenant (parentheses: no tenant id can have it). */
    public static final String DEFAULT_TENANT_TAG = dev.postbox.TenantId.DEFAULT_NAME;

    /** The {@code tenant} tag of the tenants beyond the worst N. */
    public static final String OTHER_TENANTS_TAG = "(other)";

    /**
     * Gauge of this process's handler threads stuck in attempts given up for their time limit (their
     * handlers ignored the interrupt and have not returned); above {@code
     * postbox.worker.stuck-thread-limit} the health contributor reports DOWN.
     */
    public static final String STUCK_THREADS = "postbox.worker.stuck.threads";

    /** Gauge of dead letters per queue; tag {@code queue}. */
    public static final String DLQ_DEPTH = "postbox.dlq.depth";

    /** Gauge, 1 when claiming of the queue is paused, else 0; tag {@code queue}. */
    public static final String QUEUE_PAUSED = "postbox.queue.paused";

    /** Counter of schedule fires that became jobs (on this node's materialiser); tag {@code schedule}. */
    public static final String SCHEDULE_FIRES = "postbox.schedule.fires";

    /**
     * Timer of the materialisation lag of schedule fires: database time of the materialiser pass minus
     * the fire instant (how late the fire's job was written); tag {@code schedule}.
     */
    public static final String SCHEDULE_LAG = "postbox.schedule.lag";

    private PostboxMetrics() {}
}
