package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maintenance service: deletes attempt-log rows older than the retention period, in batches,
 * except those of jobs still in the dead letters (their history is what an operator reads before
 * a replay).
 */
public final class AttemptLogCleaner implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(AttemptLogCleaner.class);
    private static final int BATCH = 5000;
    private static final String DELETE = "DELETE FROM outbox_attempt WHERE ctid = ANY (ARRAY("
            + " SELECT a.ctid FROM outbox_attempt a"
            + "  WHERE a.finished_at < now() - ?::bigint * interval '1 millisecond'"
            + "    AND NOT EXISTS (SELECT 1 FROM outbox_dead_letter d WHERE d.id = a.job_id)"
            + "  LIMIT " + BATCH + "))";

    private final DataSource dataSource;
    private final Duration retention;
    private final FailureBackoff failures;

    public AttemptLogCleaner(DataSource dataSource, Duration retention) {
        this.dataSource = dataSource;
        this.retention = retention;
        this.failures = new FailureBackoff(log, "Cleaning the attempt log");
    }

    @Override
    public void run() {
        try {
            clean();
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(e, "it runs again at the next maintenance interval");
        }
    }

    /** Deletes expired rows; returns how many. */
    public int clean() throws SQLException {
        int total = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            int deleted;
            do {
                try (PreparedStatement ps = c.prepareStatement(DELETE)) {
                    ps.setLong(1, retention.toMillis());
                    deleted = ps.executeUpdate();
                }
                total += deleted;
            } while (deleted == BATCH);
        }
        return total;
    }
}
