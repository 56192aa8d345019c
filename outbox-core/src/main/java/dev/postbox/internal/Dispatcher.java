package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim loop: claims batches while there is room (handler threads plus a prefetch buffer),
 * split between priority lanes by weight and within per-queue caps (per process and
 * cluster-wide), hands the jobs to the workers, and sleeps until new work is announced (NOTIFY), capacity frees
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
    private final LaneShares lanes;
    private final Map<String, AtomicInteger> heldPerQueue = new ConcurrentHashMap<>();
    private static final long CAPS_REFRESH_NANOS = 2_000_000_000L;
    private volatile Map<String, Integer> clusterCaps = Map.of();
    private long capsReadAt;
    private volatile boolean running = true;
    private volatile boolean waitingForRoom;
    private final FailureBackoff failures;

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
        int[] weights = config.laneWeights();
        this.lanes = new LaneShares(weights[0], weights[1], weights[2]);
        this.failures = new FailureBackoff(log, "Claiming jobs", FailureBackoff.capFor(config.pollInterval()));
    }

    /** Jobs claimed and waiting for a worker thread. */
    BlockingQueue<ClaimedJob> buffer() {
        return buffer;
    }

    /** New work may be available (a notification arrived). */
    void wake() {
        wakeUp.signal();
    }

    /** A claim's outcome was written: its room is free again. */
    void released(ClaimedJob job) {
        held(job.job().queue()).decrementAndGet();
        room.release();
        if (waitingForRoom) {
            wakeUp.signal();
        }
    }

    /**
     * Takes up to {@code wanted} slots of room for a claim made outside the loop (test helpers);
     * returns how many. Unused slots go back through {@link #giveBack(int)}.
     */
    int reserve(int wanted) {
        int got = Math.min(wanted, room.availablePermits());
        return got > 0 && room.tryAcquire(got) ? got : 0;
    }

    void giveBack(int slots) {
        room.release(slots);
    }

    /** Counts claims made outside the loop against their queue, as the loop does. */
    void held(List<ClaimedJob> jobs) {
        for (ClaimedJob job : jobs) {
            held(job.job().queue()).incrementAndGet();
        }
    }

    void stop() {
        running = false;
        wakeUp.signal();
    }

    @Override
    public void run() {
        while (running) {
            try {
                boolean backlog = claimOnce();
                failures.succeeded();
                if (!running) {
                    break;
                }
                if (backlog) {
                    awaitRoom();
                } else {
                    wakeUp.await(config.pollInterval());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (SQLException | RuntimeException e) {
                Duration delay = failures.failed(e, "no new jobs are claimed meanwhile");
                try {
                    wakeUp.await(delay);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * After a full batch: waits until a worthwhile claim fits (a quarter batch of room), so that
     * each freed slot does not cost a claim statement of its own; at most one poll interval.
     */
    private void awaitRoom() throws InterruptedException {
        long deadline = System.nanoTime() + config.pollInterval().toNanos();
        waitingForRoom = true;
        try {
            while (running && room.availablePermits() < minimumClaim) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                wakeUp.await(Duration.ofNanos(left));
            }
        } finally {
            waitingForRoom = false;
        }
    }

    /** Claims from every queue once; returns whether some queue may have more due jobs. */
    boolean claimOnce() throws SQLException {
        boolean backlog = false;
        refreshCaps();
        for (String queue : config.queues()) {
            int wanted = Math.min(room.availablePermits(), config.claimBatchSize());
            Integer processCap = config.queueConcurrency().get(queue);
            if (processCap != null) {
                wanted = Math.min(wanted, processCap - held(queue).get());
            }
            if (wanted < 1) {
                backlog |= processCap == null;
                continue;
            }
            if (!room.tryAcquire(wanted)) {
                return true;
            }
            List<ClaimedJob> jobs;
            try (Connection c = dataSource.getConnection()) {
                jobs = clusterCaps.containsKey(queue) ? claimCapped(c, queue, wanted) : claimShared(c, queue, wanted);
            } catch (SQLException | RuntimeException e) {
                room.release(wanted);
                throw e;
            }
            room.release(wanted - jobs.size());
            if (jobs.isEmpty()) {
                continue;
            }
            held(queue).addAndGet(jobs.size());
            inFlight.add(jobs);
            listener.claimed(queue, jobs.size());
            buffer.addAll(jobs);
            backlog |= jobs.size() == wanted;
        }
        return backlog;
    }

    /**
     * Claims with every lane's weighted share first; if that leaves room and some lane may hold
     * more, a second statement fills the rest, lanes in priority order.
     */
    private List<ClaimedJob> claimShared(Connection c, String queue, int wanted) throws SQLException {
        c.setAutoCommit(true);
        int[] shares = lanes.allocate(wanted);
        JobStore.Claim first = store.claim(c, queue, shares, wanted, config.workerId(), config.visibilityTimeout());
        int remaining = wanted - first.jobs().size();
        // A lane that returned less than its share is empty; any other lane (full share, or no
        // share this time) may have more.
        boolean more = false;
        for (int i = 0; i < 3; i++) {
            more |= first.perLane()[i] == shares[i];
        }
        if (remaining == 0 || !more) {
            return first.jobs();
        }
        List<ClaimedJob> jobs = new ArrayList<>(first.jobs());
        jobs.addAll(store.claim(c, queue, remaining, config.workerId(), config.visibilityTimeout()));
        return jobs;
    }

    /** A queue with a cluster-wide cap: claims under the queue's lock, within its free slots. */
    private List<ClaimedJob> claimCapped(Connection c, String queue, int wanted) throws SQLException {
        return Transactions.call(c, tx -> {
            Integer free = store.lockCappedQueue(tx, queue);
            int limit = free == null ? wanted : Math.min(wanted, free);
            return limit <= 0
                    ? List.of()
                    : store.claim(tx, queue, limit, config.workerId(), config.visibilityTimeout());
        });
    }

    private void refreshCaps() throws SQLException {
        long now = System.nanoTime();
        if (now - capsReadAt < CAPS_REFRESH_NANOS && capsReadAt != 0) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            clusterCaps = store.cappedQueues(c);
        }
        capsReadAt = now;
    }

    private AtomicInteger held(String queue) {
        return heldPerQueue.computeIfAbsent(queue, q -> new AtomicInteger());
    }

    /** Takes back the jobs that no worker has started (for release at shutdown). */
    List<ClaimedJob> drainUnstarted() {
        List<ClaimedJob> unstarted = new ArrayList<>();
        buffer.drainTo(unstarted);
        return unstarted; // their room is freed when they leave InFlight
    }
}
