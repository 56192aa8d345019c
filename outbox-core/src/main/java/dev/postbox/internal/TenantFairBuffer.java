package dev.postbox.internal;

import dev.postbox.TenantId;
import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The claimed jobs waiting for a worker thread, taken round robin by tenant: one queue per tenant
 * (in claim order within it) and a rotation of the tenants that have jobs waiting. So a job of a
 * quiet tenant, once claimed, is the next or nearly the next job a worker takes, even when the
 * prefetch buffer holds a thousand jobs of a flooding tenant.
 *
 * <p>Within a tenant, the jobs with an ordering key and the others take turns. A key's next job is
 * claimable only once its predecessor has finished, so each of its jobs spends its whole wait in
 * the buffer on the key's critical path: behind a thousand prefetched unordered jobs every job of
 * the key waited for all of them, and a busy key fell behind for good (the chaos soak: about 1 s a
 * job, 0.5 jobs a second per key). Taking turns bounds that wait by the ordered jobs ahead (at most
 * one per key) while the unordered ones keep at least half of the tenant's turns.
 *
 * <p>Unbounded (the dispatcher's room bounds it); every operation is O(1) but iteration and removal.
 */
final class TenantFairBuffer extends AbstractQueue<ClaimedJob> implements BlockingQueue<ClaimedJob> {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Map<String, TenantJobs> byTenant = new HashMap<>();
    private final ArrayDeque<String> rotation = new ArrayDeque<>();
    private int size;

    private static String tenantOf(ClaimedJob job) {
        return TenantId.key(job.job().tenant().orElse(null));
    }

    @Override
    public boolean offer(ClaimedJob job) {
        Objects.requireNonNull(job, "job");
        lock.lock();
        try {
            append(job);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adds the jobs under one hold of the lock, then wakes the waiting workers once (one worker for one
     * job): a claimed batch no longer takes and signals the lock once per job.
     */
    @Override
    public boolean addAll(Collection<? extends ClaimedJob> jobs) {
        jobs.forEach(job -> Objects.requireNonNull(job, "job"));
        lock.lock();
        try {
            for (ClaimedJob job : jobs) {
                append(job);
            }
            if (jobs.size() == 1) {
                notEmpty.signal();
            } else if (!jobs.isEmpty()) {
                notEmpty.signalAll();
            }
        } finally {
            lock.unlock();
        }
        return !jobs.isEmpty();
    }

    private void append(ClaimedJob job) {
        String tenant = tenantOf(job);
        TenantJobs waiting = byTenant.get(tenant);
        if (waiting == null) {
            waiting = new TenantJobs();
            byTenant.put(tenant, waiting);
            rotation.addLast(tenant);
        }
        waiting.add(job);
        size++;
    }

    /** The next job round robin by tenant; the caller holds the lock and the buffer is not empty. */
    private ClaimedJob next() {
        String tenant = rotation.pollFirst();
        TenantJobs jobs = tenant == null ? null : byTenant.get(tenant);
        ClaimedJob job = jobs == null ? null : jobs.poll();
        if (tenant == null || jobs == null || job == null) {
            throw new IllegalStateException("the tenant rotation is out of step with the waiting jobs");
        }
        if (jobs.isEmpty()) {
            byTenant.remove(tenant);
        } else {
            rotation.addLast(tenant);
        }
        size--;
        return job;
    }

    @Override
    public @Nullable ClaimedJob poll() {
        lock.lock();
        try {
            return size == 0 ? null : next();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public @Nullable ClaimedJob poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (size == 0) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            return next();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ClaimedJob take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (size == 0) {
                notEmpty.await();
            }
            return next();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public @Nullable ClaimedJob peek() {
        lock.lock();
        try {
            String tenant = rotation.peekFirst();
            TenantJobs jobs = tenant == null ? null : byTenant.get(tenant);
            return jobs == null ? null : jobs.peek();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void put(ClaimedJob job) {
        offer(job);
    }

    @Override
    public boolean offer(ClaimedJob job, long timeout, TimeUnit unit) {
        return offer(job);
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int drainTo(Collection<? super ClaimedJob> into) {
        return drainTo(into, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super ClaimedJob> into, int max) {
        lock.lock();
        try {
            int n = 0;
            while (size > 0 && n < max) {
                into.add(next());
                n++;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes one waiting job out (a batch worker collecting the waiting jobs of its kind); false when
     * it is not waiting any more (another worker took it).
     */
    @Override
    public boolean remove(@Nullable Object o) {
        if (!(o instanceof ClaimedJob job)) {
            return false;
        }
        lock.lock();
        try {
            String tenant = tenantOf(job);
            TenantJobs jobs = byTenant.get(tenant);
            if (jobs == null || !jobs.remove(job)) {
                return false;
            }
            if (jobs.isEmpty()) {
                byTenant.remove(tenant);
                rotation.remove(tenant);
            }
            size--;
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot, in no particular order; removal through it is not supported. */
    @Override
    public Iterator<ClaimedJob> iterator() {
        lock.lock();
        try {
            List<ClaimedJob> all = new ArrayList<>(size);
            byTenant.values().forEach(jobs -> {
                all.addAll(jobs.ordered);
                all.addAll(jobs.unordered);
            });
            return java.util.Collections.unmodifiableList(all).iterator();
        } finally {
            lock.unlock();
        }
    }

    /** One tenant's waiting jobs: those with an ordering key and the others, each in claim order, taken in turn. */
    private static final class TenantJobs {
        final ArrayDeque<ClaimedJob> ordered = new ArrayDeque<>();
        final ArrayDeque<ClaimedJob> unordered = new ArrayDeque<>();
        private boolean orderedNext = true;

        void add(ClaimedJob job) {
            (job.job().orderingKey().isPresent() ? ordered : unordered).addLast(job);
        }

        private boolean orderedTurn() {
            return !ordered.isEmpty() && (orderedNext || unordered.isEmpty());
        }

        @Nullable
        ClaimedJob poll() {
            boolean fromOrdered = orderedTurn();
            orderedNext = !fromOrdered;
            return fromOrdered ? ordered.pollFirst() : unordered.pollFirst();
        }

        @Nullable
        ClaimedJob peek() {
            return orderedTurn() ? ordered.peekFirst() : unordered.peekFirst();
        }

        boolean remove(ClaimedJob job) {
            return ordered.removeFirstOccurrence(job) || unordered.removeFirstOccurrence(job);
        }

        boolean isEmpty() {
            return ordered.isEmpty() && unordered.isEmpty();
        }
    }
}
