package dev.postbox.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A handler thread: takes claimed jobs from the buffer and runs them until told to stop; a job of a
 * batch kind together with the waiting jobs of its kind.
 */
final class Worker implements Runnable {

    private final BlockingQueue<ClaimedJob> buffer;
    private final JobRunner runner;
    private final BatchRunner batches;
    private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    private volatile boolean running = true;
    private volatile boolean replaced;

    Worker(BlockingQueue<ClaimedJob> buffer, JobRunner runner, BatchRunner batches) {
        this.buffer = buffer;
        this.runner = runner;
        this.batches = batches;
    }

    /** Finish the current job, take no new one. */
    void stop() {
        running = false;
    }

    /**
     * Its thread is stuck in an attempt given up for its time limit and a new worker took its place:
     * it ends when that attempt's handler returns.
     */
    void replaced() {
        replaced = true;
    }

    /** The worker running on the calling thread, or null (a test's {@code runDueJobs}). */
    static @Nullable Worker current() {
        return CURRENT.get();
    }

    @Override
    public void run() {
        CURRENT.set(this);
        while (running && !replaced) {
            ClaimedJob job;
            try {
                job = buffer.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (job == null) {
                continue;
            }
            // Either frees the jobs' room once their outcomes are written.
            if (batches.handles(job)) {
                batches.runWithWaiting(job, buffer);
            } else {
                runner.run(job);
            }
        }
    }
}
