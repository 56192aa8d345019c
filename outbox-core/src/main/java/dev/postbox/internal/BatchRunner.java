package dev.postbox.internal;

import dev.postbox.AttemptLogLevel;
import dev.postbox.BatchHandlerRegistration;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxInstrumentation;
import dev.postbox.PostboxInstrumentation.AttemptOutcome;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs claimed jobs of a batch kind together: takes the waiting jobs of the kind from the claimed
 * buffer, hands them to the kind's {@link dev.postbox.BatchJobHandler} at once, completes the done
 * members in one fenced statement, and writes each failed member's retry or dead letter as {@link
 * JobRunner} writes a plain handler's failure. Each member keeps the single job's rules before its
 * attempt: a lost claim is skipped, a lease near its end is not started, an expired job is archived
 * unrun, a suspect job's start is written first.
 */
final class BatchRunner {

    private static final Logger log = LoggerFactory.getLogger(BatchRunner.class);

    private final Map<String, BatchHandlerRegistration> registrations;
    private final JobRunner runner;
    private final DataSource dataSource;
    private final JobStore store;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final AttemptInstrumentation instrumentation;
    private final AttemptLogger attempts;
    private final boolean logCompletions;
    private final FailureBackoff writeFailures;

    BatchRunner(
            Map<String, BatchHandlerRegistration> registrations,
            JobRunner runner,
            DataSource dataSource,
            JobStore store,
            InFlight inFlight,
            PostboxListener listener,
            PostboxInstrumentation instrumentation,
            PostboxConfig config) {
        this.registrations = Map.copyOf(registrations);
        this.runner = runner;
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.listener = listener;
        this.instrumentation = new AttemptInstrumentation(instrumentation);
        this.attempts = new AttemptLogger(config.slowAttemptThreshold());
        this.logCompletions = config.attemptLog() == AttemptLogLevel.ALL;
        this.writeFailures = new FailureBackoff(log, "Completing a batch of jobs");
    }

    /** Whether the job's kind has a batch handler. */
    boolean handles(ClaimedJob claimed) {
        return registrations.containsKey(claimed.job().kind());
    }

    /** The largest batch of the job's kind (a batch kind). */
    int maxBatchSize(ClaimedJob claimed) {
        return registration(claimed).maxBatchSize();
    }

    private BatchHandlerRegistration registration(ClaimedJob claimed) {
        BatchHandlerRegistration registration = registrations.get(claimed.job().kind());
        if (registration == null) {
            throw new IllegalStateException(
                    "no batch handler for kind '" + claimed.job().kind() + "'");
        }
        return registration;
    }

    /**
     * Runs {@code first} with the jobs of its kind that wait in {@code buffer}, up to the kind's batch
     * size; never waits for more. Never throws.
     */
    void runWithWaiting(ClaimedJob first, BlockingQueue<ClaimedJob> buffer) {
        String kind = first.job().kind();
        int max = maxBatchSize(first);
        List<ClaimedJob> members = new ArrayList<>();
        members.add(first);
        for (ClaimedJob waiting : buffer) {
            if (members.size() >= max) {
                break;
            }
            // remove() tells whether this worker took it, or another worker was first.
            if (waiting.job().kind().equals(kind) && buffer.remove(waiting)) {
                members.add(waiting);
            }
        }
        run(members);
    }

    /** Runs claimed jobs of one batch kind as one batch and writes each outcome; never throws. */
    void run(List<ClaimedJob> members) {
        BatchHandlerRegistration registration = registration(members.get(0));
        try {
            List<ClaimedJob> ready = new ArrayList<>(members.size());
            for (ClaimedJob claimed : members) {
                if (!runner.startable(claimed)) {
                    continue;
                }
                if (claimed.expired()) {
                    runner.writeExpired(claimed);
                    continue;
                }
                ready.add(claimed);
            }
            if (!ready.isEmpty()) {
                MDC.put("postbox.kind", registration.kind());
                MDC.put("postbox.batchSize", Integer.toString(ready.size()));
                execute(ready, registration);
            }
        } catch (RuntimeException | Error e) {
            log.error(
                    "Unexpected failure running a batch of {} jobs of kind '{}'; their leases will expire and they"
                            + " run again",
                    members.size(),
                    registration.kind(),
                    e);
            members.forEach(inFlight::remove);
        } finally {
            MDC.remove("postbox.kind");
            MDC.remove("postbox.batchSize");
        }
    }

    private void execute(List<ClaimedJob> ready, BatchHandlerRegistration registration) {
        long start = System.nanoTime();
        Map<ClaimedJob, PostboxInstrumentation.Attempt> observed = new IdentityHashMap<>();
        List<ClaimedJob> begun = new ArrayList<>(ready.size());
        for (ClaimedJob claimed : ready) {
            PostboxInstrumentation.Attempt attempt = instrumentation.started(claimed.job());
            AttemptOutcome notBegun = runner.begin(claimed);
            if (notBegun != null) {
                instrumentation.ended(attempt, claimed.job(), notBegun, null);
            } else {
                observed.put(claimed, attempt);
                begun.add(claimed);
            }
        }
        if (begun.isEmpty()) {
            return;
        }
        ClaimedBatch batch = new ClaimedBatch(registration.kind(), begun);
        Throwable batchFailure = null;
        try {
            begun.forEach(ClaimedJob::enteringHandler);
            registration.handler().handle(batch);
        } catch (Exception | Error e) {
            batchFailure = e;
        } finally {
            batch.close();
            begun.forEach(ClaimedJob::handlerDone);
        }
        List<ClaimedJob> done = new ArrayList<>(begun.size());
        Map<ClaimedJob, Throwable> failed = new IdentityHashMap<>();
        for (ClaimedJob claimed : begun) {
            Throwable failure = batch.failure(claimed);
            if (failure == null) {
                failure = batchFailure;
            }
            if (failure == null) {
                done.add(claimed);
            } else {
                failed.put(claimed, failure);
            }
        }
        Map<ClaimedJob, AttemptOutcome> outcomes = complete(done, millisSince(start));
        for (ClaimedJob claimed : begun) {
            Throwable failure = failed.get(claimed);
            AttemptOutcome completed = outcomes.get(claimed);
            AttemptOutcome outcome = failure != null
                    ? runner.record(claimed, Outcomes.of(failure), failure, start)
                    : completed != null ? completed : AttemptOutcome.UNRECORDED;
            PostboxInstrumentation.Attempt attempt = observed.get(claimed);
            if (attempt != null) {
                instrumentation.ended(attempt, claimed.job(), outcome, failure);
            }
        }
    }

    /**
     * Completes the done members in one statement, each under its own token; a member whose lease
     * was taken over is fenced off. Returns each member's outcome.
     */
    private Map<ClaimedJob, AttemptOutcome> complete(List<ClaimedJob> done, long tookMillis) {
        Map<ClaimedJob, AttemptOutcome> outcomes = new IdentityHashMap<>();
        if (done.isEmpty()) {
            return outcomes;
        }
        List<JobStore.Completion> completions = new ArrayList<>(done.size());
        for (ClaimedJob claimed : done) {
            completions.add(new JobStore.Completion(claimed.id(), claimed.token(), tookMillis));
        }
        Duration took = Duration.ofMillis(tookMillis);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            Set<Long> finished = new HashSet<>(store.finish(c, completions, "done", logCompletions));
            writeFailures.succeeded();
            for (ClaimedJob claimed : done) {
                if (finished.contains(claimed.id())) {
                    attempts.log(claimed.job(), "done", took, null);
                    listener.completed(claimed.job(), took);
                    outcomes.put(claimed, AttemptOutcome.SUCCESS);
                } else {
                    log.warn(
                            "Job {} finished in a batch but its lease (token {}) was taken over: completion fenced"
                                    + " off, the job runs again under its new claim",
                            claimed.id(),
                            claimed.token());
                    listener.staleToken(claimed.id(), "complete");
                    outcomes.put(claimed, AttemptOutcome.LEASE_LOST);
                }
            }
        } catch (SQLException | RuntimeException e) {
            writeFailures.failed(e, "the batch's jobs run again when their leases expire");
            done.forEach(claimed -> outcomes.put(claimed, AttemptOutcome.UNRECORDED));
        } finally {
            done.forEach(inFlight::remove);
        }
        return outcomes;
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
