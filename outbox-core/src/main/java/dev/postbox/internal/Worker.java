package dev.postbox.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A handler thread: takes claimed jobs from the buffer and runs them until told to stop. */
final class Worker implements Runnable {

    private final BlockingQueue<ClaimedJob> buffer;
    private final JobRunner runner;
    private volatile boolean running = true;

    Worker(BlockingQueue<ClaimedJob> buffer, JobRunner runner) {
        this.buffer = buffer;
        this.runner = runner;
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
            runner.run(job); // frees the job's room once its outcome is written
        }
    }
}
