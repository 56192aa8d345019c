package dev.postbox.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out when transactions that Postbox cannot follow have ended: jobs enqueued on a plain JDBC
 * connection, whose commit the caller makes. Each such enqueue hands over its transaction id ({@code
 * txid_current()}, read by the INSERT itself); a background thread asks PostgreSQL for their status
 * ({@code txid_status}) in one statement for all of them, first one interval after the enqueue,
 * then once per interval while new ones come in or some end, backing off to the poll interval
 * while only long transactions remain. Committed ones wake the dispatchers; rolled back ones are
 * forgotten. A failed check forgets the pending ones (polling finds their jobs).
 *
 * <p>So a plain JDBC enqueue is noticed within about one interval after its commit, and costs the
 * database one short read per interval while such enqueues happen; the business transaction runs
 * no extra statement.
 */
final class CommitWatcher {

    private static final Logger log = LoggerFactory.getLogger(CommitWatcher.class);

    /** Beyond this many unresolved transactions new ones are not watched (polling finds their jobs). */
    static final int MAX_PENDING = 100_000;

    private static final String STATUS = "SELECT x, txid_status(x) FROM unnest(?::bigint[]) AS t(x)";

    private final DataSource dataSource;
    private final Runnable onCommitted;
    private final long intervalNanos;
    private final long maxGapNanos;
    private final ScheduledThreadPoolExecutor executor;
    private final FailureBackoff failures;
    private final ConcurrentLinkedQueue<Long> incoming = new ConcurrentLinkedQueue<>();
    private final AtomicInteger incomingCount = new AtomicInteger();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** Watched transactions still open; only the checking thread touches it. */
    private final Set<Long> pending = new HashSet<>();

    private long gapNanos;

    CommitWatcher(DataSource dataSource, Runnable onCommitted, Duration interval, Duration maxGap) {
        this.dataSource = dataSource;
        this.onCommitted = onCommitted;
        this.intervalNanos = interval.toNanos();
        this.maxGapNanos = Math.max(intervalNanos, maxGap.toNanos());
        this.gapNanos = intervalNanos;
        this.executor = DaemonExecutor.singleThread("postbox-commit-watch-");
        this.failures = new FailureBackoff(log, "Checking the commit of plain JDBC enqueues (txid_status)");
    }

    /** Wakes the dispatchers once the transaction commits. */
    void watch(long transactionId) {
        if (incomingCount.incrementAndGet() > MAX_PENDING) {
            incomingCount.decrementAndGet();
            return;
        }
        incoming.add(transactionId);
        if (scheduled.compareAndSet(false, true)) {
            executor.schedule(this::check, intervalNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        try {
            checkOnce();
        } catch (RuntimeException | Error e) {
            // Never leave the flag set without a check scheduled: watching would stop for good.
            log.warn("Checking the commit of plain JDBC enqueues failed; their jobs are found by polling", e);
            pending.clear();
            scheduled.set(false);
        }
    }

    private void checkOnce() {
        boolean fresh = false;
        for (Long x; (x = incoming.poll()) != null; ) {
            incomingCount.decrementAndGet();
            fresh |= pending.add(x);
        }
        boolean resolved = false;
        if (!pending.isEmpty()) {
            try {
                resolved = resolve();
                failures.succeeded();
            } catch (SQLException | RuntimeException e) {
                failures.failed(e, "jobs enqueued on plain JDBC connections are found by polling meanwhile");
                pending.clear();
            }
        }
        gapNanos = fresh || resolved ? intervalNanos : Math.min(maxGapNanos, gapNanos * 2);
        if (!pending.isEmpty()) {
            executor.schedule(this::check, gapNanos, TimeUnit.NANOSECONDS);
            return;
        }
        scheduled.set(false);
        // A watch() between the drain above and the flag found it set and scheduled nothing.
        if (!incoming.isEmpty() && scheduled.compareAndSet(false, true)) {
            executor.schedule(this::check, intervalNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Drops the ended transactions; returns whether any did. Wakes once if any committed. */
    private boolean resolve() throws SQLException {
        List<Long> ended = new ArrayList<>();
        boolean committed = false;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(STATUS)) {
                Array ids = c.createArrayOf("bigint", pending.toArray());
                ps.setArray(1, ids);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String status = rs.getString(2);
                        if (!"in progress".equals(status)) {
                            ended.add(rs.getLong(1));
                            // null: too old for the commit log to tell, so long over; wake to be safe
                            committed |= !"aborted".equals(status);
                        }
                    }
                }
            }
        }
        ended.forEach(pending::remove);
        if (committed) {
            onCommitted.run();
        }
        return !ended.isEmpty();
    }
}
