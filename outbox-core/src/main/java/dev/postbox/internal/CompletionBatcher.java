package dev.postbox.internal;

import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes successful jobs in bulk: one statement per batch, flushed when the batch is full or
 * the flush interval has passed since its first entry. A job is only done once its batch commits;
 * if the process dies before that, the lease expires and the job runs again (at least once).
 */
final class CompletionBatcher implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(CompletionBatcher.class);

    record Done(
            ClaimedJob claimed,
            long durationMillis,
            @Nullable String resultJson) {}

    private final LinkedBlockingQueue<Done> queue = new LinkedBlockingQueue<>();
    private final DataSource dataSource;
    private final JobStore store;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final int batchSize;
    private final Duration flushInterval;
    private final boolean logAttempts;
    private final FailureBackoff failures;
    private volatile boolean running = true;

    CompletionBatcher(
            DataSource dataSource,
            JobStore store,
            InFlight inFlight,
            PostboxListener listener,
            int batchSize,
            Duration flushInterval,
            Duration backoffCap,
            boolean logAttempts) {
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.listener = listener;
        this.batchSize = batchSize;
        this.flushInterval = flushInterval;
        this.logAttempts = logAttempts;
        this.failures = new FailureBackoff(log, "Completing finished jobs", backoffCap);
    }

    void add(ClaimedJob claimed, long durationMillis, @Nullable String resultJson) {
        queue.add(new Done(claimed, durationMillis, resultJson));
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        List<Done> batch = new ArrayList<>(batchSize);
        while (running || !queue.isEmpty() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Done first = queue.poll(50, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    long deadline = System.nanoTime() + flushInterval.toNanos();
                    while (batch.size() < batchSize) {
                        queue.drainTo(batch, batchSize - batch.size());
                        long remaining = deadline - System.nanoTime();
                        if (batch.size() >= batchSize || remaining <= 0) {
                            break;
                        }
                        Done next = queue.poll(remaining, TimeUnit.NANOSECONDS);
                        if (next == null) {
                            break;
                        }
                        batch.add(next);
                    }
                }
                flush(batch);
                failures.succeeded();
                batch.clear();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (SQLException | RuntimeException e) {
                Duration delay = failures.failed(
                        e, "the finished jobs wait to be completed (" + batch.size() + " now), their leases held");
                if (!running) {
                    return; // leases expire and the rescuer runs the jobs again
                }
                pause(delay);
            }
        }
    }

    /** Flushes synchronously; used by the engine and by test helpers. */
    void flush(List<Done> batch) throws SQLException {
        if (batch.isEmpty()) {
            return;
        }
        List<JobStore.Completion> completions = new ArrayList<>(batch.size());
        for (Done done : batch) {
            completions.add(new JobStore.Completion(
                    done.claimed().id(), done.claimed().token(), done.durationMillis(), done.resultJson()));
        }
        Set<Long> finished;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            finished = new HashSet<>(store.finish(c, completions, "done", logAttempts));
        }
        for (Done done : batch) {
            inFlight.remove(done.claimed());
            if (finished.contains(done.claimed().id())) {
                listener.completed(done.claimed().job(), Duration.ofMillis(done.durationMillis()));
            } else {
                log.warn(
                        "Job {} finished but its lease (token {}) was taken over: completion fenced off, the job"
                                + " runs again under its new claim",
                        done.claimed().id(),
                        done.claimed().token());
                listener.staleToken(done.claimed().id(), "complete");
            }
        }
    }

    /** Drains what is queued and flushes it now (test helpers, shutdown). */
    void flushNow() throws SQLException {
        List<Done> batch = new ArrayList<>();
        queue.drainTo(batch);
        flush(batch);
    }

    private void pause(Duration delay) {
        try {
            Thread.sleep(delay.toMillis()); // back off while the database is unavailable
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
