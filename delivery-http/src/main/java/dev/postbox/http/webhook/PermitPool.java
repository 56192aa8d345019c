package dev.postbox.http.webhook;

import dev.postbox.http.internal.NegativeControls;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One process's view of one cluster-wide bucket. Threads that need a permit wait here; one of them
 * at a time leases permits from the database, asking for no more than there are waiting threads (at
 * most {@code chunk}), so leased permits are used at once instead of being hoarded (which would let
 * a process spend them later in a burst). Permits not used within {@code ttl} are dropped. Before a
 * thread joins the pool, a resilience4j {@link RateLimiter} at the bucket's effective rate paces
 * this process's demand: one process alone never asks faster than the endpoint's rate, and a
 * permit, once granted by the database, is never delayed locally (a delay between grant and send
 * would shift sends out of the window the bucket accounted them in).
 */
final class PermitPool {

    private final String key;
    private final RateLimitStore store;
    private final int chunk;
    private final long ttlNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    private int permits;
    private long permitsExpireAt;
    private boolean leasing;
    private long nextLeaseAt = System.nanoTime();
    private int waiters;
    private volatile double rate;
    private volatile @Nullable RateLimiter smoother;
    private volatile double smootherRate;

    PermitPool(String key, double initialRate, RateLimitStore store, int chunk, Duration ttl) {
        this.key = key;
        this.rate = initialRate;
        this.store = store;
        this.chunk = chunk;
        this.ttlNanos = ttl.toNanos();
    }

    /**
     * Takes one permit, waiting up to {@code maxWait}: first a local pacing permission (this
     * process never asks faster than the bucket's effective rate), then a permit leased from the
     * database, used at once.
     *
     * @return null when a permit was taken (or the bucket does not exist: no limit); otherwise the
     *     estimated wait after which a permit is likely, to snooze for
     */
    @Nullable
    Duration acquire(Duration maxWait) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        RateLimiter smooth = smoother;
        if (smooth == null || Math.abs(smootherRate - rate) > rate * 0.01) {
            smooth = newSmoother(rate);
        }
        if (!smooth.acquirePermission()) {
            return estimate(System.nanoTime());
        }
        if (NegativeControls.RATE_LIMIT_PER_PROCESS) {
            return null; // the negative control: this process's pacing alone, no cluster-wide bucket
        }
        lock.lockInterruptibly();
        waiters++;
        try {
            while (true) {
                long now = System.nanoTime();
                if (permits > 0 && now - permitsExpireAt < 0) {
                    permits--;
                    return null;
                }
                permits = 0;
                if (!leasing && now - nextLeaseAt >= 0) {
                    leasing = true;
                    int want = Math.min(chunk, Math.max(1, waiters));
                    RateLimitStore.Lease lease;
                    lock.unlock();
                    try {
                        lease = store.lease(key, want);
                    } finally {
                        lock.lock();
                        leasing = false;
                        changed.signalAll();
                    }
                    if (lease == null) {
                        return null;
                    }
                    now = System.nanoTime();
                    rate = lease.rate();
                    permits += lease.granted();
                    permitsExpireAt = now + ttlNanos;
                    nextLeaseAt = lease.granted() < want
                            ? now + lease.untilNextToken().toNanos()
                            : now;
                    continue;
                }
                if (now - deadline >= 0) {
                    return estimate(now);
                }
                long wakeAt = leasing ? deadline : (deadline - nextLeaseAt < 0 ? deadline : nextLeaseAt);
                changed.awaitNanos(Math.max(100_000L, wakeAt - now));
            }
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    private synchronized RateLimiter newSmoother(double permitsPerSecond) {
        if (smoother != null && Math.abs(smootherRate - permitsPerSecond) <= permitsPerSecond * 0.01) {
            return smoother;
        }
        long periodNanos = (long) (1e9 / permitsPerSecond);
        int perPeriod = 1;
        if (periodNanos < 1_000_000L) {
            perPeriod = (int) Math.ceil(permitsPerSecond / 1000.0);
            periodNanos = 1_000_000L;
        }
        RateLimiter limiter = RateLimiter.of(
                "postbox-" + key,
                RateLimiterConfig.custom()
                        .limitForPeriod(perPeriod)
                        .limitRefreshPeriod(Duration.ofNanos(periodNanos))
                        .timeoutDuration(Duration.ofSeconds(1))
                        .build());
        smoother = limiter;
        smootherRate = permitsPerSecond;
        return limiter;
    }

    /** Wait before this process's waiters, plus ours, can expect a permit; jittered by up to 20%. */
    private Duration estimate(long now) {
        double queued = waiters / Math.max(rate, 1e-9);
        long untilLease = Math.max(0, nextLeaseAt - now);
        long nanos = untilLease + (long) (queued * 1e9);
        nanos += (long) (nanos * 0.2 * ThreadLocalRandom.current().nextDouble());
        return Duration.ofNanos(Math.max(nanos, 10_000_000L));
    }
}
