package dev.postbox.internal;

import dev.postbox.AttemptLogLevel;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.JsonCodec;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxInstrumentation;
import dev.postbox.PostboxInstrumentation.AttemptOutcome;
import dev.postbox.PostboxListener;
import dev.postbox.PostboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs one claimed job and writes its outcome: done (batched, or inside the handler's transaction
 * for transactional handlers), retry with full jitter, dead letter, or snooze.
 *
 * <p>Before the handler runs: a claim the heartbeat found lost is skipped; a claim with less than
 * the start margin of its lease left is not started (released without charge, or, if the lease may
 * have lapsed already, left to the rescuer); a suspect job's start is written first. Other starts
 * are written in batches by {@link StartMarks}.
 */
public final class JobRunner {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    /** The attempt log's outcome of an attempt given up for its time limit. */
    static final String TIMED_OUT = "timed_out";

    private final Map<String, HandlerRegistration> handlers;
    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    private final JobStore store;
    private final LeaseStore leases;
    private final CompletionBatcher completions;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final AttemptInstrumentation instrumentation;
    private final PostboxConfig config;
    private final String workerId;
    private final AttemptLogger attempts;
    private final long startMarginNanos;
    private final FailureBackoff writeFailures;
    private final RetryPolicies policies;
    private final JsonCodec codec;
    private final StuckThreads stuck;
    private final ScheduledThreadPoolExecutor timeLimits;

    JobRunner(
            Map<String, HandlerRegistration> handlers,
            DataSource dataSource,
            TransactionTemplate transactions,
            JobStore store,
            LeaseStore leases,
            CompletionBatcher completions,
            InFlight inFlight,
            PostboxListener listener,
            PostboxInstrumentation instrumentation,
            PostboxConfig config,
            RetryPolicies policies,
            JsonCodec codec) {
        this.handlers = handlers;
        this.codec = codec;
        this.policies = policies;
        this.dataSource = dataSource;
        this.transactions = transactions;
        this.store = store;
        this.leases = leases;
        this.completions = completions;
        this.inFlight = inFlight;
        this.listener = listener;
        this.instrumentation = new AttemptInstrumentation(instrumentation);
        this.config = config;
        this.workerId = config.workerId();
        this.attempts = new AttemptLogger(config.slowAttemptThreshold());
        this.startMarginNanos = startMargin(config).toNanos();
        this.writeFailures = new FailureBackoff(log, "Writing a job's outcome");
        this.stuck = new StuckThreads(config.stuckThreadLimit());
        this.timeLimits = DaemonExecutor.singleThread("postbox-time-limit-");
        // An attempt that ends in time cancels its expiry: drop it from the queue then, not at its time.
        timeLimits.setRemoveOnCancelPolicy(true);
    }

    /** The threads stuck in attempts given up for their time limit. */
    StuckThreads stuckThreads() {
        return stuck;
    }

    /**
     * The time limit of this attempt: the job's own, else its kind's, else the engine's; null for
     * none.
     */
    @Nullable
    Duration timeLimit(ClaimedJob claimed, HandlerRegistration registration) {
        if (claimed.ownTimeLimitMillis() > 0) {
            return Duration.ofMillis(claimed.ownTimeLimitMillis());
        }
        Duration kind = registration.timeLimit();
        return kind != null ? kind : config.attemptTimeLimit().orElse(null);
    }

    /**
     * The lease a claim must have left for its attempt to start: half the slack a healthy heartbeat
     * leaves, {@code (visibilityTimeout - heartbeatInterval) / 2} (10 s with the defaults). While
     * heartbeats succeed a lease never gets that short; a claim that has less means heartbeats have
     * been failing (a database outage, a long pause of this process), and its lease may lapse while
     * the handler runs, so that the job runs twice.
     */
    static Duration startMargin(PostboxConfig config) {
        return config.visibilityTimeout().minus(config.heartbeatInterval()).dividedBy(2);
    }

    /** Runs the job and writes its outcome; never throws. */
    void run(ClaimedJob claimed) {
        try {
            if (startable(claimed)) {
                runAndRecord(claimed);
            }
        } catch (RuntimeException | Error e) {
            log.error("Unexpected failure running job {}; its lease will expire and it runs again", claimed.id(), e);
            inFlight.remove(claimed);
        }
    }

    /**
     * Whether the claim may start now. A claim the heartbeat found lost is skipped. A claim whose
     * lease is near its end is released without charge (fenced: harmless if the lease moved on);
     * one whose lease may have lapsed already is dropped without a write, and the rescuer returns
     * it, uncharged, when the lease has expired.
     */
    boolean startable(ClaimedJob claimed) {
        if (!inFlight.holds(claimed)) {
            return false;
        }
        long left = claimed.leaseLeftNanos(System.nanoTime());
        if (left >= startMarginNanos) {
            return true;
        }
        if (left <= 0) {
            log.debug("job {}: lease may have lapsed before the attempt started; not started", claimed.id());
            inFlight.remove(claimed);
            return false;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            store.snooze(
                    c,
                    List.of(claimed),
                    Duration.ZERO,
                    workerId,
                    "lease near its end before the attempt started: released, not charged",
                    false,
                    config.attemptLog() != AttemptLogLevel.NONE);
            writeFailures.succeeded();
            log.debug("job {}: lease near its end before the attempt started; released", claimed.id());
        } catch (SQLException | RuntimeException e) {
            writeFailures.failed(e, "a job whose lease is near its end waits for the rescuer instead");
        } finally {
            inFlight.remove(claimed);
        }
        return false;
    }

    /**
     * Notes that the attempt starts now. A suspect job's start is written first (it may crash
     * this process, as it may have crashed an earlier one). Returns null when the handler may run,
     * else why not: the lease moved on ({@code LEASE_LOST}) or the mark could not be written
     * ({@code UNRECORDED}).
     */
    @Nullable
    AttemptOutcome begin(ClaimedJob claimed) {
        if (claimed.suspect()) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                boolean marked = leases.markStartedNow(c, claimed);
                writeFailures.succeeded();
                if (!marked) {
                    inFlight.remove(claimed);
                    listener.staleToken(claimed.id(), "start");
                    return AttemptOutcome.LEASE_LOST;
                }
                claimed.startMarked();
            } catch (SQLException | RuntimeException e) {
                writeFailures.failed(e, "a job whose start could not be recorded is not run now; it runs again later");
                inFlight.remove(claimed);
                return AttemptOutcome.UNRECORDED;
            }
        }
        claimed.started(System.nanoTime());
        return null;
    }

    private void runAndRecord(ClaimedJob claimed) {
        Job job = claimed.job();
        MDC.put("postbox.jobId", Long.toString(job.id()));
        MDC.put("postbox.queue", job.queue());
        MDC.put("postbox.kind", job.kind());
        MDC.put("postbox.attempt", Integer.toString(job.attempt()));
        String traceId = AttemptLogger.traceId(job);
        if (!traceId.equals("-")) {
            MDC.put("traceId", traceId);
        }
        long start = System.nanoTime();
        try {
            if (claimed.expired()) {
                writeExpired(claimed);
                return;
            }
            HandlerRegistration registration = handlers.get(job.kind());
            if (registration == null) {
                unknownKind(claimed);
                return;
            }
            execute(claimed, registration, start);
        } finally {
            MDC.remove("postbox.jobId");
            MDC.remove("postbox.queue");
            MDC.remove("postbox.kind");
            MDC.remove("postbox.attempt");
            MDC.remove("traceId");
        }
    }

    private void execute(ClaimedJob claimed, HandlerRegistration registration, long start) {
        Job job = claimed.job();
        // The instrumentation starts before a suspect job's start is written: whatever it costs (the
        // first use in a new process loads its classes) must not sit between that mark and the
        // handler, where a crash would charge an attempt whose handler never ran.
        PostboxInstrumentation.Attempt observed = instrumentation.started(job);
        AttemptOutcome notBegun = begin(claimed);
        if (notBegun != null) {
            instrumentation.ended(observed, job, notBegun, null);
            return;
        }
        AttemptOutcome outcome = AttemptOutcome.UNRECORDED;
        Throwable error = null;
        Duration limit = timeLimit(claimed, registration);
        // The handler sees its attempt's limit and what is left of it (Job#timeLeft).
        Job handed = limit == null ? job : job.toBuilder().timeLimit(limit).build();
        try {
            if (registration.isTransactional()) {
                JobOutcome result = transactions.execute(status -> {
                    JobOutcome answer;
                    try {
                        claimed.enteringHandler();
                        claimed.callingHandler(Worker.current(), transactionConnection());
                        expiring(claimed, limit, start);
                        answer = answer(registration, handed);
                    } catch (RuntimeException e) {
                        throw returned(claimed, e);
                    } catch (Exception e) {
                        throw returned(claimed, new HandlerFailure(e));
                    }
                    if (!claimed.handlerReturned()) {
                        throw new GivenUp(null);
                    }
                    if (answer instanceof JobOutcome.Done done) {
                        completeInTransaction(claimed, millisSince(start), resultJson(job, done));
                    } else {
                        status.setRollbackOnly(); // the job does not complete: neither do the handler's writes
                    }
                    return answer;
                });
                if (result instanceof JobOutcome.Done) {
                    inFlight.remove(claimed);
                    outcome = AttemptOutcome.SUCCESS;
                    Duration took = Duration.ofMillis(millisSince(start));
                    attempts.log(job, "done", took, null);
                    listener.completed(job, took);
                } else {
                    outcome = record(claimed, result, null, start);
                }
            } else {
                claimed.enteringHandler();
                claimed.callingHandler(Worker.current(), null);
                expiring(claimed, limit, start);
                JobOutcome result;
                try {
                    result = answer(registration, handed);
                } catch (Exception | Error e) {
                    throw returned(claimed, e);
                }
                if (!claimed.handlerReturned()) {
                    throw new GivenUp(null);
                }
                claimed.handlerDone();
                if (result instanceof JobOutcome.Done done) {
                    String json = resultJson(job, done);
                    outcome = AttemptOutcome.SUCCESS;
                    long took = millisSince(start);
                    attempts.log(job, "done", Duration.ofMillis(took), null);
                    completions.add(claimed, took, json);
                } else {
                    outcome = record(claimed, result, null, start);
                }
            }
        } catch (Exception | Error e) {
            if (e instanceof GivenUp || !claimed.handlerReturned()) {
                // given up for its time limit, its outcome written (timed_out): the call came back
                // late, or failed because its connection was closed; nothing of it is written
                error = e instanceof GivenUp ? e.getCause() : e;
                outcome = lateReturn(claimed);
            } else if (e instanceof ResultRefused refused) {
                error = e;
                outcome = record(claimed, JobOutcome.dead(refused.reason()).withCause(ResultRefused.CAUSE), e, start);
            } else if (e instanceof StaleLeaseException) {
                outcome = AttemptOutcome.LEASE_LOST;
                inFlight.remove(claimed);
                log.warn(
                        "job {} attempt {}: lease taken over while the handler ran; its transaction rolled back",
                        job.id(),
                        job.attempt());
                listener.staleToken(job.id(), "complete");
            } else if (e instanceof HandlerFailure failure) {
                error = failure.error();
                outcome = record(claimed, Outcomes.of(failure.error()), failure.error(), start);
            } else if (e instanceof Error) {
                error = e;
                outcome = record(claimed, Outcomes.of(e), e, start);
            } else {
                error = e;
                outcome = claimed.handlerEntered()
                        ? record(claimed, Outcomes.of(e), e, start)
                        : record(claimed, notBegun((Exception) e), e, start);
            }
        } finally {
            claimed.handlerDone(); // its outcome is written (or given up): no start mark needed
            claimed.handlerReturned(); // a call that never began must not be given up later
            claimed.cancelExpiry();
            instrumentation.ended(observed, job, outcome, error);
        }
    }

    /** The handler of a given-up attempt came back: its thread is no longer stuck. */
    private AttemptOutcome lateReturn(ClaimedJob claimed) {
        Thread.interrupted(); // the give-up's interrupt must not end the worker's next wait
        stuck.returned(claimed);
        log.info(
                "job {} attempt {}: the handler came back after its attempt was given up for its time limit;"
                        + " what it answered is discarded",
                claimed.id(),
                claimed.job().attempt());
        return AttemptOutcome.TIMED_OUT;
    }

    /**
     * What the handler threw, unless its attempt was given up for its time limit first: then that
     * (with the throwable as its cause), and nothing of this call is written.
     */
    private static RuntimeException returned(ClaimedJob claimed, Throwable thrown) {
        if (!claimed.handlerReturned()) {
            return new GivenUp(thrown);
        }
        if (thrown instanceof RuntimeException e) {
            return e;
        }
        if (thrown instanceof Error e) {
            throw e;
        }
        return new HandlerFailure((Exception) thrown);
    }

    /** The connection of the transaction the calling thread is in (a transactional attempt's). */
    private Connection transactionConnection() {
        Connection c = DataSourceUtils.getConnection(dataSource);
        DataSourceUtils.releaseConnection(c, dataSource); // the transaction keeps it
        return c;
    }

    /** Schedules the attempt's give-up at its limit, when it has one. */
    private void expiring(ClaimedJob claimed, @Nullable Duration limit, long start) {
        if (limit != null) {
            claimed.expiry(
                    timeLimits.schedule(() -> giveUp(claimed, limit, start), limit.toNanos(), TimeUnit.NANOSECONDS));
        }
    }

    /**
     * The attempt ran past its time limit: gives its handler call up (interrupts it, closes a
     * transactional handler's connection), then writes the charged attempt as {@code timed_out}:
     * retried with backoff, or dead-lettered when its budget is spent. The write clears the lease
     * token, so a late completion of the call is fenced off; leaving the held claims ends its
     * heartbeat. A handler that has not returned counts as a stuck thread until it does.
     */
    void giveUp(ClaimedJob claimed, Duration limit, long start) {
        Worker worker = claimed.worker();
        if (!claimed.giveUp(() -> stuck.add(claimed))) {
            return; // it returned meanwhile
        }
        Job job = claimed.job();
        String reason = "attempt " + job.attempt() + " ran past its time limit of " + limit + ": given up";
        log.warn(
                "job {} (kind {}) attempt {}: ran past its time limit of {}; given up (thread interrupted), charged"
                        + " and retried or dead-lettered",
                job.id(),
                job.kind(),
                job.attempt(),
                limit);
        JobOutcome.Retry retry = JobOutcome.retry(reason)
                .withDetails(new JobOutcome.Details(null, "{\"timeLimitMs\":" + limit.toMillis() + "}"));
        record(claimed, retry, new AttemptTimedOut(reason), start, TIMED_OUT);
        // After the write: a handler that honours the interrupt is back by now, and keeps its thread.
        stuck.replace(claimed, worker);
    }

    /**
     * The outcome of an attempt whose transaction could not begin (no pooled connection in time, the
     * database unreachable): its handler was never called, so the attempt is not charged. It waits
     * one poll interval and runs again; a suspect job's start mark, written before the transaction
     * began, is refunded with it. Only the exception's type is kept: the reason is stored and shown.
     */
    private JobOutcome notBegun(Exception e) {
        // one warning per 30 s with the outcome writes' (one component: this runner)
        writeFailures.failed(
                e,
                "a transactional handler's transaction could not begin: such attempts are not charged,"
                        + " their jobs wait one poll interval and run again");
        return JobOutcome.snooze(
                config.pollInterval(),
                "the attempt's transaction could not begin (" + e.getClass().getSimpleName()
                        + "); not charged, the job runs again");
    }

    /** The handler's answer to this attempt; a handler that answers nothing has a bug, and the attempt fails. */
    private static JobOutcome answer(HandlerRegistration registration, Job job) throws Exception {
        JobOutcome answer = registration.handler().attempt(job);
        if (answer == null) {
            throw new IllegalStateException("the handler of kind '" + job.kind() + "' answered no outcome (null):"
                    + " return JobOutcome.done() for success");
        }
        return answer;
    }

    /**
     * The result of a successful attempt as JSON, or null for none; refused (the job is dead-lettered)
     * when the codec cannot write it or it is larger than the cap.
     */
    private @Nullable String resultJson(Job job, JobOutcome.Done done) {
        Object result = done.result().orElse(null);
        if (result == null) {
            return null;
        }
        String json;
        try {
            json = NulCharacters.json(codec.toJson(result));
        } catch (RuntimeException e) {
            throw new ResultRefused("the result of job " + job.id() + " (kind " + job.kind()
                    + ") could not be written as JSON by the codec: " + e.getMessage());
        }
        int bytes = json == null ? 0 : json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > config.maxResultBytes()) {
            throw new ResultRefused("the result of job " + job.id() + " (kind " + job.kind() + ") is " + bytes
                    + " bytes of JSON, more than the cap of " + config.maxResultBytes()
                    + " (PostboxConfig maxResultBytes, postbox.max-result-bytes): return less, or raise the cap");
        }
        return json;
    }

    private void completeInTransaction(ClaimedJob claimed, long durationMillis, @Nullable String resultJson) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            // From the completion on, the transaction holds the job's row: a worker cut off before its
            // commit must not keep it from the rescuer (the handler's own time before is not bounded)
            IdleTransactionBound.apply(c);
            List<Long> finished = store.finish(
                    PostboxSchema.of(dataSource).connection(c),
                    List.of(new JobStore.Completion(claimed.id(), claimed.token(), durationMillis, resultJson)),
                    "done",
                    config.attemptLog() == AttemptLogLevel.ALL);
            if (finished.isEmpty() && !NegativeControls.UNFENCED_COMPLETION) {
                throw new StaleLeaseException(claimed.id(), claimed.token());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("completing job " + claimed.id() + " failed", e);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /**
     * Writes the outcome of an attempt that did not complete the job: snoozed, dead-lettered (a dead
     * outcome, or a retry on the job's last attempt), or retried after the delay {@link
     * RetryPolicies} decides. Returns what became of it ({@code UNRECORDED} when the write failed).
     *
     * @param thrown what the handler threw, or null when it answered the outcome
     */
    AttemptOutcome record(ClaimedJob claimed, JobOutcome result, @Nullable Throwable thrown, long start) {
        return record(claimed, result, thrown, start, null);
    }

    private AttemptOutcome record(
            ClaimedJob claimed,
            JobOutcome result,
            @Nullable Throwable thrown,
            long start,
            @Nullable String loggedOutcome) {
        Job job = claimed.job();
        long took = millisSince(start);
        try {
            if (result instanceof JobOutcome.Snooze snooze) {
                snooze(claimed, snooze.delay(), snooze.reason());
                return AttemptOutcome.SNOOZED;
            }
            boolean logFailures = config.attemptLog() != AttemptLogLevel.NONE;
            if (result instanceof JobOutcome.Dead dead) {
                return dead(
                        claimed,
                        dead.reason(),
                        dead.reason(),
                        dead.cause(),
                        attemptRecord(dead.reason(), dead.details(), took, loggedOutcome),
                        logFailures);
            }
            JobOutcome.Retry retry = (JobOutcome.Retry) result;
            // The budget is the job's own (set at enqueue from its request or its kind's policy).
            if (job.isLastAttempt()) {
                String reason = "attempt " + job.attempt() + " of " + job.maxAttempts() + ": " + retry.reason();
                return dead(
                        claimed,
                        retry.reason(),
                        reason,
                        null,
                        attemptRecord(retry.reason(), retry.details(), took, loggedOutcome),
                        logFailures);
            }
            Duration delay = policies.delay(job, retry, ThreadLocalRandom.current());
            boolean written;
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                written = store.retry(
                        c,
                        claimed,
                        delay,
                        attemptRecord(retry.reason(), retry.details(), took, loggedOutcome),
                        logFailures);
            }
            writeFailures.succeeded();
            attempts.log(job, "retry", Duration.ofMillis(took), retry.reason());
            if (written) {
                listener.failed(job, thrown != null ? thrown : new AnsweredFailure(retry.reason()), delay);
                return AttemptOutcome.RETRY;
            }
            listener.staleToken(job.id(), "fail");
            return AttemptOutcome.LEASE_LOST;
        } catch (SQLException | RuntimeException e) {
            writeFailures.failed(e, "such jobs run again when their leases expire");
            return AttemptOutcome.UNRECORDED;
        } finally {
            inFlight.remove(claimed);
        }
    }

    private AttemptOutcome dead(
            ClaimedJob claimed,
            String message,
            String reason,
            @Nullable String cause,
            JobStore.AttemptRecord attempt,
            boolean logFailures)
            throws SQLException {
        Job job = claimed.job();
        boolean written;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            written = store.dead(c, claimed, attempt, cause, logFailures);
        }
        writeFailures.succeeded();
        attempts.log(job, "dead", Duration.ofMillis(attempt.durationMillis()), message);
        if (written) {
            listener.dead(job, reason);
            return AttemptOutcome.DEAD;
        }
        listener.staleToken(job.id(), "dead");
        return AttemptOutcome.LEASE_LOST;
    }

    private JobStore.AttemptRecord attemptRecord(
            String message, JobOutcome.Details details, long took, @Nullable String loggedOutcome) {
        return new JobStore.AttemptRecord(workerId, message, took, details.statusCode(), details.json(), loggedOutcome);
    }

    private void snooze(ClaimedJob claimed, Duration delay, String reason) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            store.snooze(c, List.of(claimed), delay, workerId, reason, true, false);
        }
        writeFailures.succeeded();
        listener.snoozed(claimed.job(), delay);
    }

    private void unknownKind(ClaimedJob claimed) {
        Job job = claimed.job();
        log.warn(
                "job {}: no handler for kind '{}' in this process (known: {}); it waits {} and is offered again."
                        + " Register a handler for the kind, or serve its queue only from processes that have one.",
                job.id(),
                job.kind(),
                handlers.keySet(),
                config.unknownKindDelay());
        try {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                store.snooze(
                        c,
                        List.of(claimed),
                        config.unknownKindDelay(),
                        workerId,
                        "no handler for kind " + job.kind(),
                        true,
                        config.attemptLog() != AttemptLogLevel.NONE);
            }
            writeFailures.succeeded();
            listener.unknownKind(job);
        } catch (SQLException e) {
            writeFailures.failed(e, "jobs of unknown kinds stay claimed until their leases expire");
        } finally {
            inFlight.remove(claimed);
        }
    }

    void writeExpired(ClaimedJob claimed) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            store.finish(c, List.of(new JobStore.Completion(claimed.id(), claimed.token(), 0)), "expired", false);
            writeFailures.succeeded();
            log.info("job {} expired before it could run; archived as expired", claimed.id());
        } catch (SQLException e) {
            writeFailures.failed(e, "expired jobs stay claimed until their leases expire");
        } finally {
            inFlight.remove(claimed);
        }
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * What {@link PostboxListener#failed} is told for a retry the handler answered as a value (it
     * threw nothing): the reason, without a stack trace.
     */
    static final class AnsweredFailure extends RuntimeException {
        AnsweredFailure(String reason) {
            super(reason, null, false, false);
        }
    }

    /** A successful attempt's result the engine cannot store: the job is dead-lettered with this cause. */
    private static final class ResultRefused extends RuntimeException {
        static final String CAUSE = "postbox.result-refused";

        private final String reason;

        ResultRefused(String reason) {
            super(reason, null, false, false);
            this.reason = reason;
        }

        String reason() {
            return reason;
        }
    }

    /** What the listener is told of an attempt given up for its time limit. */
    static final class AttemptTimedOut extends RuntimeException {
        AttemptTimedOut(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * The handler call returned (or threw, the cause) after its attempt had been given up for its
     * time limit: nothing of it counts, and a transactional handler's transaction rolls back.
     */
    private static final class GivenUp extends RuntimeException {
        GivenUp(@Nullable Throwable cause) {
            super("the attempt was given up for its time limit", cause, false, false);
        }
    }

    /** Carries a checked handler exception out of the transaction callback. */
    private static final class HandlerFailure extends RuntimeException {
        private final Exception error;

        HandlerFailure(Exception cause) {
            super(cause);
            this.error = cause;
        }

        Exception error() {
            return error;
        }
    }
}
