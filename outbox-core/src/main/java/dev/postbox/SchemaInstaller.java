package dev.postbox;

import dev.postbox.internal.ArchivePartitions;
import dev.postbox.internal.Require;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * Applies the shipped migrations ({@code classpath:db/postbox/V<n>__<name>.sql}) that this
 * database lacks, in version order, recording them in {@code outbox_schema_version}. Idempotent,
 * and safe when several processes start at once, on a fresh database too: a transaction-scoped
 * advisory lock, taken before anything else (the version table included), serialises installers,
 * and the installer reads the applied versions at READ COMMITTED after the wait, whatever the
 * pool's isolation level, so the ones behind the first apply nothing. The migrations create no
 * schema or extension: everything goes to the connection's current schema. Use it for embedded setups and tests; in production, prefer adding {@value
 * #LOCATION} to your Flyway locations (the file names are Flyway-compatible).
 */
public final class SchemaInstaller {

    /** The classpath folder holding the migrations. */
    public static final String LOCATION = "classpath:db/postbox";

    private static final Pattern NAME = Pattern.compile("V(\\d+)__(.+)\\.sql");
    private static final long LOCK_KEY = 0x706f7374626f7800L;

    private final DataSource dataSource;

    public SchemaInstaller(DataSource dataSource) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
    }

    /** A migration found on the classpath. */
    public record Migration(int version, String description, Resource resource) {}

    /** Applies missing migrations; returns the versions applied by this call. */
    public List<Integer> install() {
        List<Migration> migrations = migrations();
        List<Integer> applied = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            // READ COMMITTED whatever the pool's default: each statement after the lock wait must see
            // what the installer before us committed. Under REPEATABLE READ the snapshot would be
            // taken by the lock statement, before the wait, and the migrations applied again.
            int isolation = c.getTransactionIsolation();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
                    lock.setLong(1, LOCK_KEY);
                    lock.execute();
                }
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE IF NOT EXISTS outbox_schema_version (version integer PRIMARY KEY,"
                            + " description text NOT NULL, installed_at timestamptz NOT NULL DEFAULT now())");
                }
                int current = currentVersion(c);
                for (Migration m : migrations) {
                    if (m.version() <= current) {
                        continue;
                    }
                    try (Statement s = c.createStatement()) {
                        s.execute(read(m.resource()));
                    } catch (SQLException e) {
                        throw new IllegalStateException(
                                "Postbox migration V" + m.version() + " (" + m.description() + ") failed: "
                                        + e.getMessage(),
                                e);
                    }
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO outbox_schema_version (version, description) VALUES (?, ?)")) {
                        ps.setInt(1, m.version());
                        ps.setString(2, m.description());
                        ps.executeUpdate();
                    }
                    applied.add(m.version());
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
                c.setTransactionIsolation(isolation);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Installing the Postbox schema failed: " + e.getMessage(), e);
        }
        try {
            new ArchivePartitions(
                            dataSource, PostboxConfig.DEFAULT_PARTITIONS_AHEAD, PostboxConfig.DEFAULT_ARCHIVE_RETENTION)
                    .maintain();
        } catch (SQLException e) {
            throw new IllegalStateException("Creating the archive partitions failed: " + e.getMessage(), e);
        }
        return applied;
    }

    private static int currentVersion(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM outbox_schema_version")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The shipped migrations in version order. */
    public static List<Migration> migrations() {
        try {
            Resource[] resources = new PathMatchingResourcePatternResolver(SchemaInstaller.class.getClassLoader())
                    .getResources(LOCATION + "/V*__*.sql");
            List<Migration> migrations = new ArrayList<>();
            for (Resource resource : resources) {
                Matcher m = NAME.matcher(String.valueOf(resource.getFilename()));
                if (m.matches()) {
                    migrations.add(new Migration(
                            Integer.parseInt(m.group(1)), m.group(2).replace('_', ' '), resource));
                }
            }
            migrations.sort(Comparator.comparingInt(Migration::version));
            for (int i = 1; i < migrations.size(); i++) {
                if (migrations.get(i).version() == migrations.get(i - 1).version()) {
                    throw new IllegalStateException("Two Postbox migrations share version "
                            + migrations.get(i).version() + ": "
                            + migrations.get(i - 1).resource() + " and "
                            + migrations.get(i).resource());
                }
            }
            if (migrations.isEmpty()) {
                throw new IllegalStateException("No Postbox migrations found under " + LOCATION
                        + ": add the dev.postbox:postbox-db jar to the classpath");
            }
            return migrations;
        } catch (IOException e) {
            throw new IllegalStateException("Listing Postbox migrations under " + LOCATION + " failed", e);
        }
    }

    private static String read(Resource resource) {
        try (InputStream in = resource.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Reading " + resource + " failed", e);
        }
    }
}
