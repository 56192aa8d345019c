package dev.postbox.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A handler thread: takes claimed jobs from the buffer and runs them until told to stop. */
final class Worker implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final BlockingQueue<ClaimedJob> buffer;
    private final JobRunner runner;
    private final Dispatcher dispatcher;
    private volatile boolean running = true;

    Worker(BlockingQueue<ClaimedJob> buffer, JobRunner runner, Dispatcher dispatcher) {
        this.buffer = buffer;
        this.runner = runner;
        this.dispatcher = dispatcher;
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
            try {
                runner.run(job);
            } catch (RuntimeException | Error e) {
                log.error("Unexpected failure running job {}", job.id(), e);
            } finally {
                dispatcher.finished(job);
            }
        }
    }
}
