package dev.postbox.http.webhook;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One process's view of one cluster-wide bucket. Threads that need a permit come here; one of them
 * at a time leases permits from the database, asking for no more than there are threads here (at
 * most {@code chunk}), so leased permits are used at once instead of being hoarded (which would let
 * a process spend them later in a burst). A permit is valid
 * for {@link RateLimitStore#SEND_ALLOWANCE} from its grant: permits not taken by then are dropped,
 * and a taken permit's request must be sent by then ({@link Grant#sendBy}), which the sender checks
 * once its connection is ready. The grant's moment on this process's clock is bounded from below by
 * the moment the lease was asked for plus the time the database reports it took to grant (the wait
 * for a busy bucket's row lock), never from the moment the answer arrived: a process paused between
 * the grant and its answer must not send the permits later. A lease whose permits are dead on
 * arrival (a starved process) snoozes its caller instead of leasing again at once, so a slow process
 * cannot burn the bucket's tokens in a loop. A thread
 * that arrives while a lease is in flight waits for it (a database round trip, which may bring its
 * permit); it never waits for the bucket to refill longer than the caller allows.
 *
 * <p>A delivery that gets no permit is told how long to snooze, so that the waiting deliveries
 * come back spread out at the endpoint's configured rate instead of all at once: each one takes the
 * next slot of the bucket's line ({@link RateLimitStore#reserve}), {@code 1 / rate} after the
 * previous one and not before the bucket holds a token again, and comes back at its slot's start:
 * a token is due then, and the claim's own delay (up to a poll interval) makes it late enough
 * (a random offset within the slot only added to that delay, and a delivery later than its slot's
 * end takes the next slot's token, so the one of the next slot finds none and goes to the end of
 * the line). The line is cluster-wide (its end is in the bucket row): every process hands out slots of the
 * same line, so the woken deliveries of all processes together come back at the rate. This pool
 * takes its slots in blocks (one statement per block) of as many slots as deliveries are waiting
 * here at that moment, at most {@code chunk}, and drops a block whose slots have passed. (Blocks of
 * {@code chunk} whatever the demand left most of each block's slots unused when few deliveries wait
 * in each of several processes, a tenant's limit say: the line ran ahead of the deliveries, which
 * came back at a fraction of the rate.) The spacing uses the configured rate, not the rate lowered
 * after 429s: when the rate recovers, the line already keeps up with it (while it is lowered, some
 * woken deliveries find no permit and take a new slot at the end of the line, which drains at the
 * lowered rate). The endpoint's deliveries that no worker has claimed yet join the same line in bulk ({@link
 * #startLineUp}, {@link DeliveryLine}), at most once a second per process.
 */
final class PermitPool {

    /** Longest wait for a lease another thread has in flight (a database round trip normally). */
    private static final long IN_FLIGHT_LEASE_WAIT_NANOS = Duration.ofSeconds(1).toNanos();

    /** Shortest snooze: never put a delivery back as due at once. */
    private static final long MIN_SNOOZE_NANOS = Duration.ofMillis(10).toNanos();

    /** Least time between two bulk line-ups of this pool's endpoint (see {@link DeliveryLine}). */
    private static final long LINE_UP_INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();

    private final String key;
    private final RateLimitStore store;
    private final int chunk;
    private final long validNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    private int permits;
    private long permitsGrantedAt;
    private boolean leasing;
    private long nextLeaseAt = System.nanoTime();
    private int waiters;
    private long slotAt;
    private long slotSpacing;
    private int slotsLeft;
    private boolean liningUp;
    private long nextLineUpAt = System.nanoTime();

    PermitPool(String key, RateLimitStore store, int chunk) {
        this.key = key;
        this.store = store;
        this.chunk = chunk;
        this.validNanos = RateLimitStore.SEND_ALLOWANCE.toNanos();
    }

    /**
     * What {@link #acquire} got: a permit (whose request must be sent by {@code sendBy}, a {@link
     * System#nanoTime()} value; null when the bucket does not exist, so there is no limit), or how
     * long to snooze the delivery.
     */
    record Grant(@Nullable Duration snooze, @Nullable Long sendBy) {
        static final Grant UNLIMITED = new Grant(null, null);

        static Grant permit(long sendBy) {
            return new Grant(null, sendBy);
        }

        static Grant snoozeFor(Duration snooze) {
            return new Grant(snooze, null);
        }
    }

    /** Takes one permit, waiting for the bucket to refill up to {@code maxWait} (zero: not at all). */
    Grant acquire(Duration maxWait) throws SQLException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + maxWait.toNanos();
        long leaseDeadline = start + Math.max(maxWait.toNanos(), IN_FLIGHT_LEASE_WAIT_NANOS);
        lock.lockInterruptibly();
        waiters++;
        try {
            while (true) {
                long now = System.nanoTime();
                if (permits > 0 && now - (permitsGrantedAt + validNanos) < 0) {
                    permits--;
                    return Grant.permit(permitsGrantedAt + validNanos);
                }
                permits = 0;
                if (leasing) {
                    if (now - leaseDeadline >= 0) {
                        return Grant.snoozeFor(snooze(now));
                    }
                    changed.awaitNanos(leaseDeadline - now);
                    continue;
                }
                if (now - nextLeaseAt >= 0) {
                    leasing = true;
                    int want = Math.min(chunk, Math.max(1, waiters));
                    RateLimitStore.Lease lease;
                    long leaseAskedAt = System.nanoTime();
                    lock.unlock();
                    try {
                        lease = store.lease(key, want);
                    } finally {
                        lock.lock();
                        leasing = false;
                        changed.signalAll();
                    }
                    if (lease == null) {
                        return Grant.UNLIMITED;
                    }
                    now = System.nanoTime();
                    permits = lease.granted();
                    permitsGrantedAt = leaseAskedAt + lease.grantDelay().toNanos();
                    nextLeaseAt = lease.granted() < want
                            ? now + lease.untilNextToken().toNanos()
                            : now;
                    if (permits > 0 && now - (permitsGrantedAt + validNanos) >= 0) {
                        permits = 0; // dead on arrival: this process is too slow to send them in time
                        return Grant.snoozeFor(snooze(now));
                    }
                    continue;
                }
                if (now - deadline >= 0) {
                    return Grant.snoozeFor(snooze(now));
                }
                changed.awaitNanos(Math.max(100_000L, Math.min(deadline, nextLeaseAt) - now));
            }
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    /**
     * The snooze of a delivery whose permit expired before its request could be sent: the next slot
     * of the bucket's line.
     */
    Duration nextSlot() throws SQLException {
        lock.lock();
        try {
            return snooze(System.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether a bulk line-up of the endpoint's other waiting deliveries is due: not when one ran less
     * than a second ago or is running. Returns how long from now the bucket holds a token again (the
     * line-up's slots start no earlier), or null; the caller ends it with {@link #linedUp}.
     */
    @Nullable
    Duration startLineUp() {
        lock.lock();
        try {
            long now = System.nanoTime();
            if (liningUp || now - nextLineUpAt < 0) {
                return null;
            }
            liningUp = true;
            return Duration.ofNanos(Math.max(0, nextLeaseAt - now));
        } finally {
            lock.unlock();
        }
    }

    /** Ends a line-up. */
    void linedUp() {
        lock.lock();
        try {
            liningUp = false;
            nextLineUpAt = System.nanoTime() + LINE_UP_INTERVAL_NANOS;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The snooze of a delivery without a permit: until the next slot of the bucket's line (see the
     * class comment). Called under the lock; takes a new block of slots when this pool's is used up
     * or past.
     */
    private Duration snooze(long now) throws SQLException {
        if (slotsLeft == 0 || slotAt - now < 0) {
            int block = Math.min(chunk, Math.max(1, waiters));
            RateLimitStore.Slots slots = store.reserve(key, block, Duration.ofNanos(Math.max(0, nextLeaseAt - now)));
            if (slots == null) {
                return Duration.ofNanos(MIN_SNOOZE_NANOS); // the bucket was just removed: no limit any more
            }
            slotAt = now + slots.first().toNanos();
            slotSpacing = slots.spacing().toNanos();
            slotsLeft = slots.count();
        }
        long slot = slotAt;
        slotAt += slotSpacing;
        slotsLeft--;
        return Duration.ofNanos(Math.max(MIN_SNOOZE_NANOS, slot - now));
    }
}
