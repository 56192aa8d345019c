package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.TenantId;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim loop: claims batches while there is room (handler threads plus a prefetch buffer),
 * split between priority lanes by weight, shared between the tenants with work (round robin from
 * where the previous claim stopped, each tenant a share), and within per-queue and per-tenant caps
 * (per process and cluster-wide); hands the jobs to the workers through a buffer taken round robin
 * by tenant, and sleeps until new work is announced (NOTIFY), capacity frees up after a full batch,
 * or the poll interval passes. docs/tenants.md has the fairness rule.
 *
 * <p>A small reserve of room ({@code announcedClaim} slots beyond the handler threads and the
 * prefetch) is kept for claims made because new work was announced: a tenant without backlog gets
 * its job claimed at once even while a flood of another tenant fills the rest, instead of after the
 * flood's next completions free room. The jobs of a claim's first statement (where every tenant with
 * work gets its share) go to the workers before its second statement (the rest for the tenants with
 * more) runs: that statement committed them already, and if the second fails they are held and run
 * all the same.
 */
final class Dispatcher implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final DataSource dataSource;
    private final ClaimStore store;
    private final InFlight inFlight;
    private final PostboxListener listener;
    private final PostboxConfig config;
    private final Semaphore room;
    private final BlockingQueue<ClaimedJob> buffer = new TenantFairBuffer();
    private final Signal wakeUp = new Signal();
    private final int minimumClaim;
    private final LaneShares lanes;
    private final Map<String, AtomicInteger> heldPerQueue = new ConcurrentHashMap<>();
    private static final long CAPS_REFRESH_NANOS = 2_000_000_000L;
    private volatile Map<String, Integer> clusterCaps = Map.of();
    private volatile Map<String, Integer> tenantCaps = Map.of();
    private final Map<String, AtomicInteger> heldPerTenant = new ConcurrentHashMap<>();
    /** Per queue: the tenant key after which the next claim starts visiting tenants. */
    private final Map<String, String> tenantCursor = new HashMap<>();

    private long capsReadAt;
    private volatile boolean running = true;
    private volatile boolean waitingForRoom;
    /** New work was announced since the last claim (it may be a tenant with no backlog). */
    private volatile boolean announced;

    /** Slots of room kept for claims after an announcement, and the least such a claim waits for. */
    private final int announcedClaim;

    private final FailureBackoff failures;

    Dispatcher(
            DataSource dataSource,
            ClaimStore store,
            InFlight inFlight,
            PostboxListener listener,
            PostboxConfig config) {
        this.dataSource = dataSource;
        this.store = store;
        this.inFlight = inFlight;
        this.listener = listener;
        this.config = config;
        int capacity = config.concurrency() + config.prefetch();
        this.minimumClaim = Math.max(1, Math.min(config.claimBatchSize(), capacity) / 4);
        this.announcedClaim = Math.max(1, minimumClaim / 8);
        this.room = new Semaphore(capacity + announcedClaim);
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
        announced = true;
        wakeUp.signal();
    }

    /**
     * A claim's outcome was written: its room is free again. A job with an ordering key may have
     * freed its key's next job, so it ends the wait for the next poll: the loop claims now (a key's
     * jobs would otherwise advance one per poll interval), or, after a full batch, as soon as there
     * is room for a claim, as for any other job.
     */
    void released(ClaimedJob job) {
        held(job.job().queue()).decrementAndGet();
        heldByTenant(job).decrementAndGet();
        room.release();
        // waiting for room: once a claim fits, not for every job that a completion batch frees
        if (waitingForRoom ? enoughRoom() : job.job().orderingKey().isPresent()) {
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
            heldByTenant(job).incrementAndGet();
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
     * each freed slot does not cost a claim statement of its own; at most one poll interval. When new
     * work is announced meanwhile (perhaps a tenant without backlog, whose job should start at once),
     * the reserve (a thirty-second of a batch) is enough, and is there unless the last such claim
     * used it.
     */
    private void awaitRoom() throws InterruptedException {
        long deadline = System.nanoTime() + config.pollInterval().toNanos();
        waitingForRoom = true;
        try {
            while (running && !enoughRoom()) {
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

    /** Room for a claim worth making: the minimum claim, or the reserve once new work was announced. */
    private boolean enoughRoom() {
        int free = room.availablePermits();
        return free - announcedClaim >= minimumClaim || (announced && free >= announcedClaim);
    }

    /**
     * Claims from every queue once; returns whether some queue may have more due jobs. The reserve
     * of room is used only when new work was announced since the last claim.
     */
    boolean claimOnce() throws SQLException {
        boolean useReserve = announced;
        announced = false;
        boolean backlog = false;
        refreshCaps();
        for (String queue : config.queues()) {
            int available = room.availablePermits() - (useReserve ? 0 : announcedClaim);
            int wanted = Math.min(available, config.claimBatchSize());
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
            int[] handedOut = {0};
            try (Connection c = dataSource.getConnection()) {
                claim(c, queue, wanted, jobs -> {
                    handOut(queue, jobs);
                    handedOut[0] += jobs.size();
                });
            } finally {
                room.release(wanted - handedOut[0]);
            }
            backlog |= handedOut[0] == wanted;
        }
        return backlog;
    }

    /** Gives claimed jobs to the workers, counted against their queue and tenant. */
    private void handOut(String queue, List<ClaimedJob> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        held(queue).addAndGet(jobs.size());
        for (ClaimedJob job : jobs) {
            heldByTenant(job).incrementAndGet();
        }
        inFlight.add(jobs);
        listener.claimed(queue, jobs.size());
        buffer.addAll(jobs);
    }

    /**
     * Claims up to {@code wanted} jobs of the queue and gives them to {@code claimed} once they are
     * committed: finds the tenants with work (round robin from the queue's cursor), leaves out those
     * at their per-process cap, and claims within the cluster-wide caps of the queue and of the
     * tenants: in one transaction holding their claim locks when some apply, else in one autocommit
     * statement (two when the first leaves room and more may be due, the first one's jobs given out
     * before the second runs).
     */
    void claim(Connection c, String queue, int wanted, Consumer<List<ClaimedJob>> claimed) throws SQLException {
        c.setAutoCommit(true);
        String cursor = tenantCursor.getOrDefault(queue, "");
        List<String> withWork = TenantStore.tenantsWithWork(c, queue, cursor, config.tenantsPerClaim());
        if (withWork.isEmpty()) {
            return;
        }
        // Next time start after the first tenant visited now (so every tenant leads in turn), or after
        // the last one when this claim could not visit them all.
        tenantCursor.put(queue, withWork.get(withWork.size() == config.tenantsPerClaim() ? withWork.size() - 1 : 0));
        List<ClaimStore.TenantRoom> tenants = new ArrayList<>(withWork.size());
        List<String> clusterCapped = new ArrayList<>();
        Map<String, Integer> caps = tenantCaps;
        for (String key : withWork) {
            int room = processRoom(key);
            if (room > 0) {
                tenants.add(new ClaimStore.TenantRoom(key, room));
                if (caps.containsKey(key)) {
                    clusterCapped.add(key);
                }
            }
        }
        if (tenants.isEmpty()) {
            return;
        }
        boolean queueCapped = clusterCaps.containsKey(queue);
        if (!queueCapped && clusterCapped.isEmpty()) {
            claimShared(c, queue, tenants, wanted, claimed);
            return;
        }
        List<ClaimStore.TenantRoom> candidates = tenants;
        // In a transaction nothing is given out before the commit.
        claimed.accept(Transactions.call(c, tx -> {
            int limit = wanted;
            if (queueCapped) {
                Integer free = store.lockCappedQueue(tx, queue);
                limit = free == null ? wanted : Math.min(wanted, free);
            }
            List<ClaimStore.TenantRoom> within = candidates;
            if (!clusterCapped.isEmpty() && limit > 0) {
                Map<String, Integer> free = TenantStore.lockCappedTenants(tx, clusterCapped);
                within = new ArrayList<>(candidates.size());
                for (ClaimStore.TenantRoom t : candidates) {
                    int room = Math.min(t.room(), free.getOrDefault(t.key(), t.room()));
                    if (room > 0) {
                        within.add(new ClaimStore.TenantRoom(t.key(), room));
                    }
                }
            }
            List<ClaimedJob> jobs = new ArrayList<>();
            if (limit > 0 && !within.isEmpty()) {
                claimShared(tx, queue, within, limit, jobs::addAll);
            }
            return jobs;
        }));
    }

    /** How many more jobs of the tenant this process may hold (its per-process cap minus those held). */
    private int processRoom(String key) {
        OptionalInt cap = config.tenantConcurrency(key.isEmpty() ? null : key);
        if (cap.isEmpty()) {
            return Integer.MAX_VALUE;
        }
        return cap.getAsInt()
                - heldPerTenant.computeIfAbsent(key, k -> new AtomicInteger()).get();
    }

    /**
     * Claims with every lane's weighted share, each tenant taking a share of each lane, first; if that
     * leaves room and more may be due (a lane gave its full share, or a tenant may have more than its
     * share), a second statement fills the rest, lanes in priority order and tenants in turn, each
     * within what is left of its room. Each statement's jobs go to {@code claimed} as it returns.
     */
    private void claimShared(
            Connection c,
            String queue,
            List<ClaimStore.TenantRoom> tenants,
            int wanted,
            Consumer<List<ClaimedJob>> claimed)
            throws SQLException {
        int[] shares = lanes.allocate(wanted);
        ClaimStore.Claim first =
                store.claim(c, queue, tenants, shares, true, wanted, config.workerId(), config.visibilityTimeout());
        claimed.accept(first.jobs());
        int remaining = wanted - first.jobs().size();
        // A lane that returned less than its share is empty; any other lane (full share, or no
        // share this time) may have more. With several tenants, a tenant may have had more than its share.
        boolean more = tenants.size() > 1 && !first.jobs().isEmpty();
        for (int i = 0; i < 3; i++) {
            more |= first.perLane()[i] == shares[i];
        }
        if (remaining == 0 || !more) {
            return;
        }
        Map<String, Integer> taken = new HashMap<>();
        for (ClaimedJob job : first.jobs()) {
            taken.merge(TenantId.key(job.job().tenant().orElse(null)), 1, Integer::sum);
        }
        List<ClaimStore.TenantRoom> left = new ArrayList<>(tenants.size());
        for (ClaimStore.TenantRoom t : tenants) {
            long room = (long) t.room() - taken.getOrDefault(t.key(), 0);
            if (room > 0) {
                left.add(new ClaimStore.TenantRoom(t.key(), (int) Math.min(Integer.MAX_VALUE, room)));
            }
        }
        if (left.isEmpty()) {
            return;
        }
        claimed.accept(store.claim(
                        c,
                        queue,
                        left,
                        new int[] {remaining, remaining, remaining},
                        false,
                        remaining,
                        config.workerId(),
                        config.visibilityTimeout())
                .jobs());
    }

    private void refreshCaps() throws SQLException {
        long now = System.nanoTime();
        if (now - capsReadAt < CAPS_REFRESH_NANOS && capsReadAt != 0) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            clusterCaps = store.cappedQueues(c);
            tenantCaps = TenantStore.cappedTenants(c);
        }
        capsReadAt = now;
    }

    private AtomicInteger held(String queue) {
        return heldPerQueue.computeIfAbsent(queue, q -> new AtomicInteger());
    }

    private AtomicInteger heldByTenant(ClaimedJob job) {
        return heldPerTenant.computeIfAbsent(TenantId.key(job.job().tenant().orElse(null)), k -> new AtomicInteger());
    }

    /** Takes back the jobs that no worker has started (for release at shutdown). */
    List<ClaimedJob> drainUnstarted() {
        List<ClaimedJob> unstarted = new ArrayList<>();
        buffer.drainTo(unstarted);
        return unstarted; // their room is freed when they leave InFlight
    }
}
