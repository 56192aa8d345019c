package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maintenance service for {@code outbox_job_archive}: creates the daily partitions ahead of time
 * (UTC days, database clock) and drops whole partitions past the retention period. Retention is
 * never a mass DELETE. Dead letters live in their own table and are not touched.
 */
public final class ArchivePartitions implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ArchivePartitions.class);
    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;
    private static final Pattern PARTITION = Pattern.compile("outbox_job_archive_p(\\d{8})");
    /** Serialises maintenance across nodes: pg_try_advisory_xact_lock key. */
    private static final long LOCK_KEY = 0x706f7374626f7801L;

    private final DataSource dataSource;
    private final int daysAhead;
    private final Duration retention;
    private final FailureBackoff failures;

    public ArchivePartitions(DataSource dataSource, int daysAhead, Duration retention) {
        this.dataSource = dataSource;
        this.daysAhead = daysAhead;
        this.retention = retention;
        this.failures = new FailureBackoff(log, "Archive partition maintenance");
    }

    @Override
    public void run() {
        try {
            maintain();
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(e, "it runs again at the next maintenance interval");
        }
    }

    /** Creates missing partitions and drops expired ones; returns the dropped partition names. */
    public List<String> maintain() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (!tryLock(c)) {
                    c.rollback();
                    return List.of();
                }
                LocalDate today = today(c);
                List<String> existing = partitions(c);
                for (int d = 0; d <= daysAhead; d++) {
                    LocalDate day = today.plusDays(d);
                    if (!existing.contains(name(day))) {
                        create(c, day); // DDL locks the archive briefly: only when a day is missing
                    }
                }
                List<String> dropped = dropBefore(c, existing, today.minusDays(Math.max(1, retention.toDays())));
                c.commit();
                return dropped;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static boolean tryLock(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_xact_lock(?)")) {
            ps.setLong(1, LOCK_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static LocalDate today(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT (now() AT TIME ZONE 'UTC')::date")) {
            rs.next();
            return rs.getObject(1, LocalDate.class);
        }
    }

    private static String name(LocalDate day) {
        return "outbox_job_archive_p" + DAY.format(day);
    }

    private static void create(Connection c, LocalDate day) throws SQLException {
        // The name and bounds are formatted from a LocalDate: digits only, no user input.
        String sql = "CREATE TABLE IF NOT EXISTS " + name(day) + " PARTITION OF outbox_job_archive FOR VALUES FROM ('"
                + day + " 00:00:00+00') TO ('" + day.plusDays(1) + " 00:00:00+00')";
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The archive's partitions. */
    private static List<String> partitions(Connection c) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT child.relname FROM pg_inherits i"
                        + " JOIN pg_class parent ON parent.oid = i.inhparent"
                        + " JOIN pg_class child ON child.oid = i.inhrelid"
                        + " WHERE parent.relname = 'outbox_job_archive'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    /** Drops the daily partitions whose whole day lies before {@code firstKept}. */
    private static List<String> dropBefore(Connection c, List<String> partitions, LocalDate firstKept)
            throws SQLException {
        List<String> expired = new ArrayList<>();
        for (String partition : partitions) {
            Matcher m = PARTITION.matcher(partition);
            if (m.matches() && LocalDate.parse(m.group(1), DAY).isBefore(firstKept)) {
                expired.add(partition);
            }
        }
        for (String name : expired) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + name);
            }
            log.info("Dropped archive partition {} (retention reached)", name);
        }
        return expired;
    }
}
