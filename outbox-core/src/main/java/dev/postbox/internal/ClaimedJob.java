package dev.postbox.internal;

import dev.postbox.Job;

/**
 * A job this engine holds under a lease: the handler's view, the fencing token, and what this
 * process knows locally about the claim: when its lease ends (monotonic clock) and whether its
 * attempt has started and been marked started in the database. Identity is the claim: two claims
 * of one job are two objects.
 */
public final class ClaimedJob {

    private final Job job;
    private final long token;
    private final boolean expired;
    private final boolean suspect;

    private volatile long leaseEndNanos;
    private volatile boolean started;
    private volatile long startedAtNanos;
    private volatile boolean handlerEntered;
    private volatile boolean handlerDone;
    private volatile boolean startMarked;

    /**
     * @param expired the job's expiry had passed (database clock) when it was claimed: it must not run
     * @param suspect an earlier lease of the job expired before its attempt started (the worker may
     *     have died because of it): its start is recorded before its handler runs
     * @param leaseEndNanos {@link System#nanoTime()} by which the lease ends at the latest: the time
     *     the claim statement was sent plus the visibility timeout
     */
    public ClaimedJob(Job job, long token, boolean expired, boolean suspect, long leaseEndNanos) {
        this.job = job;
        this.token = token;
        this.expired = expired;
        this.suspect = suspect;
        this.leaseEndNanos = leaseEndNanos;
    }

    public Job job() {
        return job;
    }

    public long id() {
        return job.id();
    }

    public long token() {
        return token;
    }

    public boolean expired() {
        return expired;
    }

    public boolean suspect() {
        return suspect;
    }

    /** Nanoseconds of lease left by the local estimate (negative once it may have lapsed). */
    long leaseLeftNanos(long nowNanos) {
        return leaseEndNanos - nowNanos;
    }

    /** A heartbeat extended this lease until (at least) {@code leaseEndNanos}. */
    void extendedUntil(long leaseEndNanos) {
        if (leaseEndNanos - this.leaseEndNanos > 0) {
            this.leaseEndNanos = leaseEndNanos;
        }
    }

    /** The handler is about to run. */
    void started(long nowNanos) {
        startedAtNanos = nowNanos;
        started = true;
    }

    /**
     * The handler is being called now: after the attempt's transaction (if any) has its connection
     * and the instrumentation has started. Only from here may a start mark be written in a batch: a
     * mark written while the attempt still waited for a pooled connection would charge an attempt
     * whose handler never ran if this process died in that wait.
     */
    void enteringHandler() {
        handlerEntered = true;
    }

    /** Whether the handler was called (a transactional handler: once its transaction had begun). */
    boolean handlerEntered() {
        return handlerEntered;
    }

    /** The handler returned or threw: no start mark is needed any more. */
    void handlerDone() {
        handlerDone = true;
    }

    void startMarked() {
        startMarked = true;
    }

    /** The handler was called (it may have finished since). */
    boolean hasStarted() {
        return started;
    }

    /** Running, and its start not yet written: what the next batch of start marks writes. */
    boolean awaitsStartMark() {
        return started && handlerEntered && !handlerDone && !startMarked;
    }

    long startedAtNanos() {
        return startedAtNanos;
    }

    @Override
    public String toString() {
        return "ClaimedJob[id=" + job.id() + ", token=" + token + "]";
    }
}
