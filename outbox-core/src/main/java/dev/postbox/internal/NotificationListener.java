package dev.postbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection in {@code LISTEN postbox_job} and wakes the dispatcher when jobs are
 * inserted. Reconnects with backoff; polling covers the gaps.
 */
final class NotificationListener implements Runnable {

    static final String CHANNEL = "postbox_job";
    private static final Logger log = LoggerFactory.getLogger(NotificationListener.class);

    private final DataSource dataSource;
    private final Runnable onNotification;
    private final Duration pollInterval;
    private volatile boolean running = true;

    NotificationListener(DataSource dataSource, Runnable onNotification, Duration pollInterval) {
        this.dataSource = dataSource;
        this.onNotification = onNotification;
        this.pollInterval = pollInterval;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        long backoffMillis = 100;
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                backoffMillis = 100;
                int timeout = (int) Math.min(pollInterval.toMillis(), 500);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(timeout);
                    if (notifications != null && notifications.length > 0) {
                        onNotification.run();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                log.warn(
                        "LISTEN connection lost; reconnecting in {} ms (polling continues meanwhile)",
                        backoffMillis,
                        e);
                try {
                    Thread.sleep(backoffMillis);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoffMillis = Math.min(backoffMillis * 2, 30_000);
            }
        }
    }
}
