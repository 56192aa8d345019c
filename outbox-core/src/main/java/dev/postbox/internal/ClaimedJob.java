package dev.postbox.internal;

import dev.postbox.Job;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

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
    private final int ownTimeLimitMillis;

    private volatile long leaseEndNanos;
    private volatile boolean started;
    private volatile long startedAtNanos;
    private volatile boolean handlerEntered;
    private volatile boolean handlerDone;
    private volatile boolean startMarked;

    /** Where the handler call stands: {@link #RUNNING}, then {@link #RETURNED} or {@link #GIVEN_UP}. */
    private int call = RUNNING;

    private @Nullable Thread handlerThread;
    private @Nullable Worker worker;
    private @Nullable Connection transaction;
    private volatile @Nullable ScheduledFuture<?> expiry;

    private static final int RUNNING = 0;
    private static final int RETURNED = 1;
    private static final int GIVEN_UP = 2;

    /**
     * @param expired the job's expiry had passed (database clock) when it was claimed: it must not run
     * @param suspect an earlier lease of the job expired before its attempt started (the worker may
     *     have died because of it): its start is recorded before its handler runs
     * @param leaseEndNanos {@link System#nanoTime()} by which the lease ends at the latest: the time
     *     the claim statement was sent plus the visibility timeout
     */
    public ClaimedJob(Job job, long token, boolean expired, boolean suspect, long leaseEndNanos) {
        this(job, token, expired, suspect, leaseEndNanos, 0);
    }

    /**
     * @param ownTimeLimitMillis the job's own time limit per attempt ({@code outbox_job.time_limit_ms}),
     *     0 for none
     */
    public ClaimedJob(
            Job job, long token, boolean expired, boolean suspect, long leaseEndNanos, int ownTimeLimitMillis) {
        this.job = job;
        this.token = token;
        this.expired = expired;
        this.suspect = suspect;
        this.leaseEndNanos = leaseEndNanos;
        this.ownTimeLimitMillis = ownTimeLimitMillis;
    }

    /** The job's own time limit per attempt in milliseconds, 0 when it has none. */
    int ownTimeLimitMillis() {
        return ownTimeLimitMillis;
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

    /**
     * The handler runs on the calling thread (of {@code worker}, null outside a worker), in the
     * transaction of {@code transaction} (null for a plain handler): what giving it up interrupts
     * and closes.
     */
    synchronized void callingHandler(@Nullable Worker worker, @Nullable Connection transaction) {
        this.handlerThread = Thread.currentThread();
        this.worker = worker;
        this.transaction = transaction;
    }

    /**
     * The handler returned or threw. True when its answer counts; false when the attempt was given up
     * for its time limit first (its outcome is written already, and nothing of this call may be).
     * Idempotent.
     */
    synchronized boolean handlerReturned() {
        if (call == RUNNING) {
            call = RETURNED;
        }
        handlerThread = null;
        transaction = null;
        return call == RETURNED;
    }

    /**
     * Gives the running handler call up (its time limit passed): interrupts its thread and closes
     * its transaction's connection, so that PostgreSQL rolls the transaction back and releases its
     * locks even if the handler never returns. Under this object's lock, so that the call cannot
     * return and hand the connection back to its pool meanwhile; {@code first} runs before the call
     * is stopped (under the same lock). False when the call had returned.
     */
    synchronized boolean giveUp(Runnable first) {
        if (call != RUNNING) {
            return false;
        }
        call = GIVEN_UP;
        first.run(); // before the call can come back: what it runs is seen by the return
        Connection c = transaction;
        if (c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                // the fenced completion keeps its writes out all the same; they roll back when it ends
                org.slf4j.LoggerFactory.getLogger(ClaimedJob.class)
                        .warn("job {}: closing the given-up attempt's connection failed", job.id(), e);
            }
        }
        Thread t = handlerThread;
        if (t != null) {
            t.interrupt();
        }
        return true;
    }

    /** The scheduled give-up of this attempt at its time limit. */
    void expiry(ScheduledFuture<?> expiry) {
        this.expiry = expiry;
    }

    /** The attempt ended: its give-up is not needed. */
    void cancelExpiry() {
        ScheduledFuture<?> e = expiry;
        if (e != null) {
            e.cancel(false);
        }
    }

    /** The worker whose thread runs the handler call; null outside a worker (or when not running). */
    synchronized @Nullable Worker worker() {
        return worker;
    }

    @Override
    public String toString() {
        return "ClaimedJob[id=" + job.id() + ", token=" + token + "]";
    }
}
