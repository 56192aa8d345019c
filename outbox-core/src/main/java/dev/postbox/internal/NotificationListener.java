package dev.postbox.internal;

import dev.postbox.PostboxSchema;
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
 * Holds one connection in {@code LISTEN postbox_job} and wakes the dispatcher when another process
 * (or another engine instance) announces committed jobs ({@link NotificationSender}; before schema
 * V7, the insert trigger of older versions). Notifications of this instance's own sender are
 * skipped: its dispatcher was woken in process already. Reconnects with backoff ({@link
 * FailureBackoff}); polling covers the gaps.
 */
final class NotificationListener implements Runnable {

    /** The channel of the default installation; one in a named schema listens on its own ({@link PostboxSchema#channel()}). */
    static final String CHANNEL = PostboxSchema.DEFAULT_CHANNEL;

    private static final Logger log = LoggerFactory.getLogger(NotificationListener.class);

    private final DataSource dataSource;
    private final Runnable onNotification;
    private final Duration pollInterval;
    private final FailureBackoff failures;
    private final String ownPayload;
    private final String channel;
    private volatile boolean running = true;

    NotificationListener(DataSource dataSource, Runnable onNotification, Duration pollInterval, String ownPayload) {
        this.dataSource = dataSource;
        this.ownPayload = ownPayload;
        this.channel = PostboxSchema.of(dataSource).channel();
        this.onNotification = onNotification;
        this.pollInterval = pollInterval;
        this.failures = new FailureBackoff(
                log, "Listening for new jobs (LISTEN connection)", FailureBackoff.capFor(pollInterval));
    }

    void stop() {
        running = false;
    }

    private boolean fromElsewhere(PGNotification[] notifications) {
        for (PGNotification n : notifications) {
            if (!ownPayload.equals(n.getParameter())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void run() {
        while (running) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + channel); // a validated, lower-case identifier
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                failures.succeeded();
                int timeout = (int) Math.min(pollInterval.toMillis(), 500);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(timeout);
                    if (notifications != null && fromElsewhere(notifications)) {
                        onNotification.run();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                Duration delay = failures.failed(e, "polling continues meanwhile");
                try {
                    Thread.sleep(delay.toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
