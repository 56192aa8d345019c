package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim loop: claims batches while there is room (handler threads plus a prefetch buffer),
 * hands the jobs to the workers, and sleeps until new work is announced (NOTIFY), capacity frees
 * up after a full batch, or the poll interval passes.
 */
final class Dispatcher implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final DataSource dataSource;
    private final JobStore store;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final PostboxConfig config;
    private final Semaphore room;
    private final BlockingQueue<ClaimedJob> buffer = new LinkedBlockingQueue<>();
    private final Signal wakeUp = new Signal();
    private final int minimumClaim;
    private volatile boolean running = true;
    private volatile boolean waitingForRoom;

    Dispatcher(
            DataSource dataSource, JobStore store, InFlight inFlight, PostboxListener listener, PostboxConfig config) {
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.listener = listener;
        this.config = config;
        int capacity = config.concurrency() + config.prefetch();
        this.room = new Semaphore(capacity);
        this.minimumClaim = Math.max(1, Math.min(config.claimBatchSize(), capacity) / 4);
    }

    /** Jobs claimed and waiting for a worker thread. */
    BlockingQueue<ClaimedJob> buffer() {
        return buffer;
    }

    /** New work may be available (a notification arrived). */
    void wake() {
        wakeUp.signal();
    }

    /** A worker finished a job: its room is free again. */
    void finished() {
        room.release();
        if (waitingForRoom) {
            wakeUp.signal();
        }
    }

    void stop() {
        running = false;
        wakeUp.signal();
    }

    @Override
    public void run() {
        int failures = 0;
        while (running) {
            try {
                boolean backlog = claimOnce();
                failures = 0;
                if (!running) {
                    break;
                }
                if (backlog) {
                    if (room.availablePermits() < minimumClaim) {
                        waitingForRoom = true;
                        if (room.availablePermits() < minimumClaim) {
                            wakeUp.await(config.pollInterval());
                        }
                        waitingForRoom = false;
                    }
                } else {
                    wakeUp.await(config.pollInterval());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (SQLException | RuntimeException e) {
                failures++;
                log.warn("Claiming jobs failed ({} in a row); trying again", failures, e);
                try {
                    wakeUp.await(config.pollInterval().multipliedBy(Math.min(failures, 10)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Claims from every queue once; returns whether some queue returned a full batch. */
    boolean claimOnce() throws SQLException {
        boolean backlog = false;
        for (String queue : config.queues()) {
            int wanted = Math.min(room.availablePermits(), config.claimBatchSize());
            if (wanted < 1 || !room.tryAcquire(wanted)) {
                return true;
            }
            List<ClaimedJob> jobs;
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                jobs = store.claim(c, queue, wanted, config.workerId(), config.visibilityTimeout());
            } catch (SQLException | RuntimeException e) {
                room.release(wanted);
                throw e;
            }
            room.release(wanted - jobs.size());
            if (jobs.isEmpty()) {
                continue;
            }
            inFlight.add(jobs);
            listener.claimed(queue, jobs.size());
            buffer.addAll(jobs);
            backlog |= jobs.size() == wanted;
        }
        return backlog;
    }

    /** Takes back the jobs that no worker has started (for release at shutdown). */
    List<ClaimedJob> drainUnstarted() {
        List<ClaimedJob> unstarted = new ArrayList<>();
        buffer.drainTo(unstarted);
        room.release(unstarted.size());
        return unstarted;
    }
}
