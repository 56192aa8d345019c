package dev.postbox.cron;

/**
 * What happens to a fire whose wall-clock time does not exist because the clocks spring forward
 * (for example 02:30 in {@code Europe/Berlin} on 2027-03-28, when 02:00 CET jumps to 03:00 CEST).
 */
public enum DstGapPolicy {
    /**
     * The fire runs at the first instant after the gap: {@code 30 2 * * *} in Europe/Berlin fires
     * on 2027-03-28 at 03:00 CEST (01:00Z). Several wall-clock matches inside one gap (for example
     * {@code 0,30 2 * * *}, or the 02:00 of an hourly schedule that also matches 03:00) collapse into
     * that single instant: one fire, not several. The default.
     */
    SHIFT,
    /** The fire does not happen that day: {@code 30 2 * * *} has no fire on 2027-03-28 in Berlin. */
    SKIP
}
