package dev.postbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Wakes the dispatchers when enqueued jobs have committed, from outside the enqueueing
 * transaction: this process's own dispatcher in process, the other processes' by a coalesced
 * {@code NOTIFY postbox_job} from a connection of Postbox's own ({@link NotificationSender}). When
 * the commit happens is learnt from the transaction:
 *
 * <ul>
 *   <li>a connection in auto-commit mode: the job is committed already, wake now;
 *   <li>a Spring-managed transaction on the outbox's {@code DataSource}: {@code afterCommit}; a
 *       rollback wakes nobody;
 *   <li>any other open transaction (a plain JDBC connection whose commit the caller makes): the
 *       {@link CommitWatcher} asks PostgreSQL for the transaction's status until it has ended.
 * </ul>
 *
 * Jobs inserted by plain SQL (other tools, not the API) wake nobody: the dispatchers' polling
 * finds them within the poll interval.
 */
public final class WakeUps {

    private final DataSource dataSource;
    private final String payload = "postbox:" + UUID.randomUUID();
    private final NotificationSender sender;
    private final CommitWatcher watcher;
    private volatile @Nullable Runnable localDispatcher;

    /**
     * @param notifyInterval the shortest time between two notifications of this instance
     * @param pollInterval the longest wait between two checks of a long-open plain JDBC transaction
     */
    public WakeUps(DataSource dataSource, Duration notifyInterval, Duration pollInterval) {
        this.dataSource = dataSource;
        this.sender = new NotificationSender(dataSource, notifyInterval, payload);
        this.watcher = new CommitWatcher(dataSource, this::committed, notifyInterval, pollInterval);
    }

    /**
     * The payload of this instance's notifications; its own listener skips them, since its
     * dispatcher was woken in process before the notification was sent.
     */
    public String payload() {
        return payload;
    }

    /** The dispatcher of the engine that runs in this process (null: none runs). */
    void localDispatcher(@Nullable Runnable wake) {
        this.localDispatcher = wake;
    }

    /** Jobs have committed: wakes the local dispatcher now and the other processes within an interval. */
    public void committed() {
        Runnable local = localDispatcher;
        if (local != null) {
            local.run();
        }
        sender.request();
    }

    /**
     * A job with an ordering key left this process's hands (finished, dead, retried or released):
     * its key's next job may be claimable now. This process's dispatcher claims again by itself;
     * this wakes the other processes within the notify interval, so the next job starts on whichever
     * engine has room, not at their next poll.
     */
    public void keyMayBeFree() {
        sender.request();
    }

    /**
     * Jobs were written on the connection, in the transaction {@code transactionId}: wakes the
     * dispatchers once they are committed (at once if they are).
     */
    public void afterCommit(Connection connection, long transactionId) {
        boolean autoCommit;
        try {
            autoCommit = connection.getAutoCommit();
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the connection's auto-commit mode failed", e);
        }
        if (autoCommit) {
            committed();
        } else if (TransactionSynchronizationManager.isSynchronizationActive()
                && DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    committed();
                }
            });
        } else {
            watcher.watch(transactionId);
        }
    }

    /** Notifications sent by this instance so far (coalesced: far fewer than commits under load). */
    public long notificationsSent() {
        return sender.sent();
    }
}
