package dev.postbox;

/** Which attempts are written to {@code outbox_attempt}. */
public enum AttemptLogLevel {
    /** Every attempt, successes included: full history per job, one more row per job. */
    ALL,
    /** Failed, expired, released and fenced attempts only; a success shows in the archive. */
    FAILURES,
    /** No attempt log. */
    NONE
}
