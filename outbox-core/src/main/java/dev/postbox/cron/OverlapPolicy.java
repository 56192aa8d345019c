package dev.postbox.cron;

/**
 * Whether a fire may start while the job of an earlier fire of the same schedule is unfinished
 * (pending, waiting to retry or running). Enforced by the schedule materialiser when it creates the
 * fire's job.
 */
public enum OverlapPolicy {
    /** Every fire becomes a job, whatever the state of earlier ones. The default. */
    ALLOW,
    /**
     * A fire is skipped (no job, recorded as skipped) while a job of an earlier fire of the same
     * schedule is still unfinished.
     */
    SKIP_IF_RUNNING
}
