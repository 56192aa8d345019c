package dev.postbox.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A handler thread: takes claimed jobs from the buffer and runs them until told to stop; a job of a
 * batch kind together with the waiting jobs of its kind.
 */
final class Worker implements Runnable {

    private final BlockingQueue<ClaimedJob> buffer;
    private final JobRunner runner;
    private final BatchRunner batches;
    private volatile boolean running = true;

    Worker(BlockingQueue<ClaimedJob> buffer, JobRunner runner, BatchRunner batches) {
        this.buffer = buffer;
        this.runner = runner;
        this.batches = batches;
    }

    /** Finish the current job, take no new one. */
    void stop() {
        running = false;
    }

    @Override
    public void run() {
        while (running) {
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
