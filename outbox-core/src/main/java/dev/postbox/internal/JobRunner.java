package dev.postbox.internal;

import dev.postbox.AttemptLogLevel;
import dev.postbox.HandlerRegistration;
import dev.postbox.Job;
import dev.postbox.PermanentJobFailure;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.RetryJobAfter;
import dev.postbox.RetryPolicy;
import dev.postbox.SnoozeJob;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs one claimed job and writes its outcome: done (batched, or inside the handler's transaction
 * for transactional handlers), retry with full jitter, dead letter, or snooze.
 */
public final class JobRunner {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    private final Map<String, HandlerRegistration> handlers;
    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    private final JobStore store;
    private final CompletionBatcher completions;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final PostboxConfig config;
    private final String workerId;
    private final AttemptLogger attempts;

    JobRunner(
            Map<String, HandlerRegistration> handlers,
            DataSource dataSource,
            TransactionTemplate transactions,
            JobStore store,
            CompletionBatcher completions,
            InFlight inFlight,
            PostboxListener listener,
            PostboxConfig config) {
        this.handlers = handlers;
        this.dataSource = dataSource;
        this.transactions = transactions;
        this.store = store;
        this.completions = completions;
        this.inFlight = inFlight;
        this.listener = listener;
        this.config = config;
        this.workerId = config.workerId();
        this.attempts = new AttemptLogger(config.slowAttemptThreshold());
    }

    /** Runs the job and writes its outcome; never throws. */
    void run(ClaimedJob claimed) {
        try {
            runAndRecord(claimed);
        } catch (RuntimeException | Error e) {
            log.error("Unexpected failure running job {}; its lease will expire and it runs again", claimed.id(), e);
            inFlight.remove(claimed);
        }
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
        try {
            if (registration.isTransactional()) {
                transactions.executeWithoutResult(status -> {
                    try {
                        registration.handler().handle(job);
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new HandlerFailure(e);
                    }
                    completeInTransaction(claimed, millisSince(start));
                });
                inFlight.remove(claimed);
                Duration took = Duration.ofMillis(millisSince(start));
                attempts.log(job, "done", took, null);
                listener.completed(job, took);
            } else {
                registration.handler().handle(job);
                long took = millisSince(start);
                attempts.log(job, "done", Duration.ofMillis(took), null);
                completions.add(claimed, took);
            }
        } catch (StaleLeaseException e) {
            inFlight.remove(claimed);
            log.warn(
                    "job {} attempt {}: lease taken over while the handler ran; its transaction rolled back",
                    job.id(),
                    job.attempt());
            listener.staleToken(job.id(), "complete");
        } catch (HandlerFailure e) {
            failed(claimed, registration, e.getCause(), start);
        } catch (Exception | Error e) {
            failed(claimed, registration, e, start);
        }
    }

    private void completeInTransaction(ClaimedJob claimed, long durationMillis) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            List<Long> finished = store.finish(
                    c,
                    List.of(new JobStore.Completion(claimed.id(), claimed.token(), durationMillis)),
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

    private void failed(ClaimedJob claimed, HandlerRegistration registration, Throwable error, long start) {
        Job job = claimed.job();
        long took = millisSince(start);
        RetryPolicy policy = registration.retryPolicy() != null ? registration.retryPolicy() : config.retryPolicy();
        try {
            if (error instanceof SnoozeJob snooze) {
                snooze(claimed, snooze.delay(), snooze.getMessage());
                return;
            }
            String message = describe(error);
            JobStore.AttemptRecord attempt = attemptRecord(error, message, took);
            boolean logFailures = config.attemptLog() != AttemptLogLevel.NONE;
            boolean permanent = error instanceof PermanentJobFailure;
            // The budget is the job's own (set at enqueue from its request or its kind's policy).
            boolean budgetSpent = job.isLastAttempt();
            if (permanent || budgetSpent) {
                String reason =
                        permanent ? message : "attempt " + job.attempt() + " of " + job.maxAttempts() + ": " + message;
                boolean written;
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(true);
                    written = store.dead(c, claimed, attempt, logFailures);
                }
                attempts.log(job, "dead", Duration.ofMillis(took), message);
                if (written) {
                    listener.dead(job, reason);
                } else {
                    listener.staleToken(job.id(), "dead");
                }
                return;
            }
            Duration delay = error instanceof RetryJobAfter retryAfter
                    ? policy.clamp(retryAfter.delay())
                    : policy.delayAfter(job.attempt(), ThreadLocalRandom.current());
            boolean written;
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                written = store.retry(c, claimed, delay, attempt, logFailures);
            }
            attempts.log(job, "retry", Duration.ofMillis(took), message);
            if (written) {
                listener.failed(job, error, delay);
            } else {
                listener.staleToken(job.id(), "fail");
            }
        } catch (SQLException | RuntimeException e) {
            log.error(
                    "job {}: recording the failed attempt failed; the lease will expire and the job is retried",
                    job.id(),
                    e);
        } finally {
            inFlight.remove(claimed);
        }
    }

    private JobStore.AttemptRecord attemptRecord(Throwable error, String message, long took) {
        if (error instanceof AttemptDetails details) {
            return new JobStore.AttemptRecord(workerId, message, took, details.statusCode(), details.detailJson());
        }
        return new JobStore.AttemptRecord(workerId, message, took, null, null);
    }

    private void snooze(ClaimedJob claimed, Duration delay, String reason) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            store.snooze(c, List.of(claimed), delay, workerId, reason, false);
        }
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
                        config.attemptLog() != AttemptLogLevel.NONE);
            }
            listener.unknownKind(job);
        } catch (SQLException e) {
            log.error("job {}: putting back a job of unknown kind failed; its lease will expire", job.id(), e);
        } finally {
            inFlight.remove(claimed);
        }
    }

    private void writeExpired(ClaimedJob claimed) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            store.finish(c, List.of(new JobStore.Completion(claimed.id(), claimed.token(), 0)), "expired", false);
            log.info("job {} expired before it could run; archived as expired", claimed.id());
        } catch (SQLException e) {
            log.error("job {}: archiving an expired job failed; its lease will expire", claimed.id(), e);
        } finally {
            inFlight.remove(claimed);
        }
    }

    private static String describe(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getName() + (message == null ? "" : ": " + message);
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Carries a checked handler exception out of the transaction callback. */
    private static final class HandlerFailure extends RuntimeException {
        HandlerFailure(Exception cause) {
            super(cause);
        }
    }
}
