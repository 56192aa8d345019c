package dev.postbox.cron;

/**
 * What to do with fires that were <em>missed</em> because no materialiser ran (all nodes down,
 * schedule paused, database unreachable). A fire is missed when it is older than the schedule's
 * misfire threshold ({@link ScheduleDefinition#misfireThreshold()}) at the moment a materialiser
 * looks at it; younger fires are merely late and are always materialised. See {@link
 * MissedFirePlanner} for the exact computation.
 */
public enum MissedFirePolicy {
    /**
     * All missed fires collapse into one catch-up fire at the latest missed instant. A schedule that
     * was down for ten intervals runs once on resume. The default.
     */
    ONE,
    /**
     * Every missed fire is materialised, in order, at most {@link
     * MissedFirePlanner#maxFiresPerPass()} per pass; the rest follow in the next passes, so none is
     * lost. Use for schedules whose every run matters (for example one report per hour).
     */
    ALL,
    /** Missed fires are dropped; the schedule continues with its next fire after now. */
    NONE
}
