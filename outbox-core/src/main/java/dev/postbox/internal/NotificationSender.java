package dev.postbox.internal;

import dev.postbox.PostboxSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends {@code NOTIFY postbox_job} for committed jobs from a connection of its own, never from the
 * business transaction, and coalesces: at most one notification per interval. The first request
 * after a quiet interval is sent at once; requests during the interval after a send are covered by
 * one more send at its end. No commit is left without a notification that follows it.
 *
 * <p>A transaction that notifies takes a database-wide lock at commit and holds it until its commit
 * record is flushed; this sender's transaction commits asynchronously ({@code synchronous_commit =
 * off} for that one statement: a notification is not durable anyway), so it holds the lock only
 * briefly, and the business transactions, which no longer notify, never wait for it. A failed send
 * is logged ({@link FailureBackoff}) and dropped: the listeners' polling covers it.
 */
final class NotificationSender {

    private static final Logger log = LoggerFactory.getLogger(NotificationSender.class);

    /** One statement, one implicit transaction: the local setting applies to its commit. */
    private static final String NOTIFY = "SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, ?)";

    private final DataSource dataSource;
    private final long intervalNanos;
    private final String payload;
    private final String channel;
    private final ScheduledThreadPoolExecutor executor;
    private final FailureBackoff failures;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private volatile long lastSentAt;

    NotificationSender(DataSource dataSource, Duration interval, String payload) {
        this.dataSource = dataSource;
        this.intervalNanos = interval.toNanos();
        this.payload = payload;
        this.channel = PostboxSchema.of(dataSource).channel();
        this.executor = DaemonExecutor.singleThread("postbox-notify-");
        this.failures = new FailureBackoff(log, "Sending NOTIFY " + channel);
        this.lastSentAt = System.nanoTime() - intervalNanos;
    }

    /** Jobs committed: makes sure a notification is sent after now, within one interval. */
    void request() {
        if (!scheduled.compareAndSet(false, true)) {
            return; // a send is pending; it happens after this call and covers this commit too
        }
        long wait = lastSentAt + intervalNanos - System.nanoTime();
        executor.schedule(this::send, Math.max(0, wait), TimeUnit.NANOSECONDS);
    }

    /** Notifications sent so far. */
    long sent() {
        return sent.get();
    }

    private void send() {
        // The time first, so that a request that finds the flag cleared waits the interval from it;
        // then the flag, before sending: a commit from here on asks for a send of its own.
        lastSentAt = System.nanoTime();
        scheduled.set(false);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(NOTIFY)) {
                ps.setString(1, channel);
                ps.setString(2, payload);
                ps.execute();
            }
            sent.incrementAndGet();
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(e, "other processes find the new jobs by polling meanwhile");
        }
    }
}
