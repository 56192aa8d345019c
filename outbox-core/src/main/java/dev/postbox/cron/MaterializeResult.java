package dev.postbox.cron;

/**
 * What one materialiser pass did.
 *
 * @param schedules due schedules this pass locked and processed
 * @param jobsCreated fires turned into new jobs
 * @param firesDeduplicated fires whose job already existed (same fire key); expected to stay 0,
 *     since the row lock already keeps materialisers apart
 * @param firesSkipped fires skipped by {@link OverlapPolicy#SKIP_IF_RUNNING}
 * @param failedSchedules schedules whose fires could not be materialised (logged; retried next pass)
 */
public record MaterializeResult(
        int schedules, int jobsCreated, int firesDeduplicated, int firesSkipped, int failedSchedules) {

    /** The sum of two results. */
    public MaterializeResult plus(MaterializeResult other) {
        return new MaterializeResult(
                schedules + other.schedules,
                jobsCreated + other.jobsCreated,
                firesDeduplicated + other.firesDeduplicated,
                firesSkipped + other.firesSkipped,
                failedSchedules + other.failedSchedules);
    }
}
