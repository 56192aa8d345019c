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
 *
 * <p>Partition DDL needs an exclusive lock on the archive, which every completion writes to. Behind a
 * long read of the archive (a report, {@code pg_dump}) a DDL statement without a lock timeout would
 * wait, and every completion would queue behind it. So each DDL statement runs in its own short
 * transaction with {@code lock_timeout} {@value #LOCK_TIMEOUT_MS} ms, tried {@value #TRIES} times with
 * a pause between (letting the completions that queued meanwhile through); when it still cannot
 * have the lock, maintenance gives up for this run, logs it, and the next run (the maintenance
 * interval) tries again. Partitions are created days ahead, so a postponed run loses nothing, and
 * rows of a day without its partition land in the default partition.
 *
 * <p>Schema-aware: the archive is the one the connection's {@code search_path} resolves (with a
 * named schema, {@code to_regclass} is given the qualified name, see {@link SchemaQualifier}), its
 * partitions are looked up by its oid and every statement names them schema-qualified, so a second
 * installation in another schema of the same database is neither confused nor damaged.
 */
public final class ArchivePartitions implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ArchivePartitions.class);
    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;
    private static final Pattern PARTITION = Pattern.compile("outbox_job_archive_p(\\d{8})");
    /** How long one DDL statement may wait for the archive's lock. */
    static final int LOCK_TIMEOUT_MS = 500;
    /** Tries per DDL statement and run. */
    static final int TRIES = 3;

    private static final long PAUSE_MS = 200;
    private static final String LOCK_NOT_AVAILABLE = "55P03";

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

    /** The archive table as this connection resolves it, with its schema (both quoted for SQL). */
    private record Archive(long oid, String schema, String qualifiedName) {
        String qualified(String relation) {
            return schema + "." + relation;
        }
    }

    /**
     * Creates missing partitions and drops expired ones; returns the dropped partition names. When
     * the archive's lock cannot be had within the lock timeout (a long transaction reads it), stops
     * and returns what was done: the next run tries again.
     */
    public List<String> maintain() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            Archive archive = archive(c);
            if (archive == null) {
                return List.of();
            }
            if (!tryLock(c)) {
                c.setAutoCommit(autoCommit);
                return List.of();
            }
            try {
                LocalDate today = today(c);
                List<String> existing = partitions(c, archive);
                for (int d = 0; d <= daysAhead; d++) {
                    LocalDate day = today.plusDays(d);
                    if (!existing.contains(name(day)) && !ddl(c, createSql(archive, day), "create " + name(day))) {
                        return List.of();
                    }
                }
                return dropBefore(c, archive, existing, today.minusDays(Math.max(1, retention.toDays())));
            } finally {
                unlock(c);
                c.setAutoCommit(autoCommit);
            }
        }
    }

    /**
     * Runs one DDL statement in its own transaction under the short lock timeout, up to {@value
     * #TRIES} times; false when the lock could not be had (logged, left to the next run).
     */
    private static boolean ddl(Connection c, String sql, String what) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                Transactions.run(c, tx -> {
                    try (Statement s = tx.createStatement()) {
                        s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MS + "ms'");
                        s.execute(sql);
                    }
                });
                return true;
            } catch (SQLException e) {
                if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    throw e;
                }
                if (attempt >= TRIES) {
                    log.warn(
                            "Archive maintenance postponed: could not {} within {} x {} ms, another transaction holds"
                                    + " a lock on the archive (a long read or pg_dump?); completions were not held"
                                    + " up. The next maintenance run tries again.",
                            what,
                            TRIES,
                            LOCK_TIMEOUT_MS);
                    return false;
                }
            }
            try {
                Thread.sleep(PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static @org.jspecify.annotations.Nullable Archive archive(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT t.oid::bigint, quote_ident(n.nspname),"
                        + " quote_ident(n.nspname) || '.' || quote_ident(t.relname)"
                        + " FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
                        + " WHERE t.oid = to_regclass('outbox_job_archive')")) {
            return rs.next() ? new Archive(rs.getLong(1), rs.getString(2), rs.getString(3)) : null;
        }
    }

    /** Serialises maintenance across the installation's nodes (session-scoped; {@link AdvisoryLocks}). */
    private static boolean tryLock(Connection c) throws SQLException {
        try (PreparedStatement ps =
                        c.prepareStatement("SELECT pg_try_advisory_lock(" + AdvisoryLocks.ARCHIVE_MAINTENANCE + ")");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private static void unlock(Connection c) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT pg_advisory_unlock(" + AdvisoryLocks.ARCHIVE_MAINTENANCE + ")")) {
            ps.execute();
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

    private static String createSql(Archive archive, LocalDate day) {
        // The name and bounds are formatted from a LocalDate: digits only, no user input; the schema
        // comes from the catalogue, quoted by quote_ident.
        return "CREATE TABLE IF NOT EXISTS " + archive.qualified(name(day)) + " PARTITION OF "
                + archive.qualifiedName() + " FOR VALUES FROM ('" + day + " 00:00:00+00') TO ('" + day.plusDays(1)
                + " 00:00:00+00')";
    }

    /** The partitions of this archive (by oid: not another schema's table of the same name). */
    private static List<String> partitions(Connection c, Archive archive) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT child.relname FROM pg_inherits i"
                + " JOIN pg_class child ON child.oid = i.inhrelid WHERE i.inhparent = ?::bigint::oid")) {
            ps.setLong(1, archive.oid());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /** Drops the daily partitions whose whole day lies before {@code firstKept}. */
    private static List<String> dropBefore(Connection c, Archive archive, List<String> partitions, LocalDate firstKept)
            throws SQLException {
        List<String> dropped = new ArrayList<>();
        for (String partition : partitions) {
            Matcher m = PARTITION.matcher(partition);
            if (m.matches() && LocalDate.parse(m.group(1), DAY).isBefore(firstKept)) {
                // Schema-qualified: never another installation's table found through the search_path.
                if (!ddl(c, "DROP TABLE " + archive.qualified(partition), "drop " + partition)) {
                    break;
                }
                log.info("Dropped archive partition {} (retention reached)", archive.qualified(partition));
                dropped.add(partition);
            }
        }
        return dropped;
    }
}
