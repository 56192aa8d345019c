package dev.postbox;

import dev.postbox.internal.AdvisoryLocks;
import dev.postbox.internal.ArchivePartitions;
import dev.postbox.internal.SchemaQualifier;
import dev.postbox.internal.Transactions;
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
 * advisory lock per schema, taken before anything else (the version table included), serialises installers,
 * and the installer reads the applied versions at READ COMMITTED after the wait, whatever the
 * pool's isolation level, so the ones behind the first apply nothing. The migrations create no
 * schema or extension: everything goes to the connection's current schema, or, given the {@code
 * DataSource} of a named {@link PostboxSchema} ({@link PostboxSchema#dataSource}), to that schema
 * (created when missing), with its archive partitions. The same files can be
 * applied with Flyway (their names are Flyway-compatible; give them their own history table) or
 * with Liquibase ({@value #LIQUIBASE_CHANGELOG} includes them).
 */
public final class SchemaInstaller {

    /** The classpath folder holding the migrations. */
    public static final String LOCATION = "classpath:db/postbox";

    /** The Liquibase change log that applies the same migrations, as a class path resource. */
    public static final String LIQUIBASE_CHANGELOG = "db/postbox/db.changelog-postbox.xml";

    private static final Pattern NAME = Pattern.compile("V(\\d+)__(.+)\\.sql");

    private final DataSource dataSource;

    public SchemaInstaller(DataSource dataSource) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
    }

    /** A migration found on the classpath. */
    public record Migration(int version, String description, Resource resource) {

        private static final Pattern CREATED = Pattern.compile(
                "(?im)^\\s*CREATE\\s+(?:UNIQUE\\s+)?(TABLE|INDEX)\\s+(?:CONCURRENTLY\\s+)?(?:IF\\s+NOT\\s+EXISTS\\s+)?"
                        + "([a-z_][a-z0-9_]*)");
        private static final Pattern ALTER_TABLE =
                Pattern.compile("(?is)ALTER\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?(?:ONLY\\s+)?([a-z_][a-z0-9_]*)([^;]*);");
        private static final Pattern ADD_COLUMN =
                Pattern.compile("(?i)ADD\\s+COLUMN\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?([a-z_][a-z0-9_]*)");
        private static final Pattern DROP_TRIGGER = Pattern.compile(
                "(?i)DROP\\s+TRIGGER\\s+(?:IF\\s+EXISTS\\s+)?([a-z_][a-z0-9_]*)\\s+ON\\s+(?:ONLY\\s+)?([a-z_][a-z0-9_]*)");

        /** {@code DROP INDEX [IF EXISTS] name}, the name possibly qualified ({@code %I.name} in a DO block). */
        private static final Pattern DROP_INDEX = Pattern.compile("(?i)DROP\\s+INDEX\\s+(?:CONCURRENTLY\\s+)?"
                + "(?:IF\\s+EXISTS\\s+)?(?:(?:%I|[a-z_][a-z0-9_]*)\\.)?([a-z_][a-z0-9_]*)");

        /** How {@link #objects()} names an index the migration drops: {@code index <name> dropped}. */
        static final Pattern DROPPED_INDEX = Pattern.compile("index ([a-z_][a-z0-9_]*) dropped");

        /** How {@link #objects()} names a trigger the migration drops: {@code trigger <name> on <table> dropped}. */
        static final Pattern DROPPED_TRIGGER =
                Pattern.compile("trigger ([a-z_][a-z0-9_]*) on ([a-z_][a-z0-9_]*) dropped");

        /** The SQL of the migration. */
        public String sql() {
            return read(resource);
        }

        /**
         * What the migration creates, by which a database is known to have it: tables and indexes by
         * name, added columns as {@code table.column}, in the order the migration creates them; then
         * the triggers it drops, as {@code trigger <name> on <table> dropped} (present while the
         * table exists and the trigger does not), and the indexes it drops, as {@code index <name>
         * dropped} (present while no relation has the name; an earlier migration's index that a later
         * one drops is not required of the earlier one).
         */
        public List<String> objects() {
            String sql = sql().replaceAll("(?m)--.*$", "");
            List<String> objects = new ArrayList<>();
            Matcher created = CREATED.matcher(sql);
            while (created.find()) {
                objects.add(created.group(2).toLowerCase(java.util.Locale.ROOT));
            }
            Matcher altered = ALTER_TABLE.matcher(sql);
            while (altered.find()) {
                String table = altered.group(1).toLowerCase(java.util.Locale.ROOT);
                Matcher column = ADD_COLUMN.matcher(altered.group(2));
                while (column.find()) {
                    objects.add(table + "." + column.group(1).toLowerCase(java.util.Locale.ROOT));
                }
            }
            Matcher dropped = DROP_TRIGGER.matcher(sql);
            while (dropped.find()) {
                objects.add("trigger " + dropped.group(1).toLowerCase(java.util.Locale.ROOT) + " on "
                        + dropped.group(2).toLowerCase(java.util.Locale.ROOT) + " dropped");
            }
            Matcher droppedIndex = DROP_INDEX.matcher(sql);
            while (droppedIndex.find()) {
                objects.add("index " + droppedIndex.group(1).toLowerCase(java.util.Locale.ROOT) + " dropped");
            }
            return objects;
        }
    }

    /**
     * Applies missing migrations; returns the versions applied by this call.
     *
     * @throws IllegalStateException when the database is not PostgreSQL {@value
     *     SchemaVerifier#MINIMUM_POSTGRESQL_VERSION} or newer, or a migration fails
     */
    public List<Integer> install() {
        new SchemaVerifier(dataSource).requireSupportedDatabase();
        List<Migration> migrations = migrations();
        List<Integer> applied = new ArrayList<>();
        // The scripts run as they are, on a connection of the application's DataSource whose
        // search_path is Postbox's schema for the installer's transaction (SET LOCAL).
        try (Connection c = PostboxSchema.unqualified(dataSource).getConnection()) {
            // READ COMMITTED whatever the pool's default: each statement after the lock wait must see
            // what the installer before us committed. Under REPEATABLE READ the snapshot would be
            // taken by the lock statement, before the wait, and the migrations applied again.
            int isolation = c.getTransactionIsolation();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                Transactions.run(c, tx -> applyMissing(tx, migrations, applied));
            } finally {
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

    /** In the installer's transaction: waits for the lock, then applies what the database lacks. */
    private void applyMissing(Connection c, List<Migration> migrations, List<Integer> applied) throws SQLException {
        PostboxSchema schema = PostboxSchema.of(dataSource);
        // Per schema: installers of other schemas in this database go on meanwhile.
        try (PreparedStatement lock =
                c.prepareStatement("SELECT pg_advisory_xact_lock(" + AdvisoryLocks.SCHEMA_INSTALLER + ")")) {
            lock.setString(1, schema.name().orElse(null));
            lock.execute();
        }
        if (schema.name().isPresent()) {
            SchemaQualifier qualifier = SchemaQualifier.of(schema.name().get());
            createSchemaIfMissing(c, qualifier);
            qualifier.useLocally(c);
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS outbox_schema_version (version integer PRIMARY KEY,"
                    + " description text NOT NULL, installed_at timestamptz NOT NULL DEFAULT now())");
        }
        int current = currentVersion(c);
        if (current == 0) {
            current = recordFound(c, migrations);
        }
        for (Migration m : migrations) {
            if (m.version() <= current) {
                continue;
            }
            try (Statement s = c.createStatement()) {
                s.execute(m.sql());
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "Postbox migration V" + m.version() + " (" + m.description() + ") failed: " + e.getMessage(),
                        e);
            }
            record(c, m, m.description());
            applied.add(m.version());
        }
    }

    /** Creates the configured schema unless it exists (so that no CREATE privilege is needed when it does). */
    private static void createSchemaIfMissing(Connection c, SchemaQualifier qualifier) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            ps.setString(1, qualifier.schema());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + qualifier.quoted());
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Creating schema " + qualifier.schema() + " for Postbox's tables failed: "
                            + e.getMessage() + ". Create it yourself (CREATE SCHEMA " + qualifier.quoted() + ") with a"
                            + " role that may, and grant Postbox's role USAGE and CREATE on it.",
                    e);
        }
    }

    /**
     * On the installer's first run, records the migrations someone else already applied (Flyway,
     * Liquibase, a DBA: their tables exist), so that they are not run twice.
     */
    private static int recordFound(Connection c, List<Migration> migrations) throws SQLException {
        int found = SchemaVerifier.installedVersion(c);
        for (Migration m : migrations) {
            if (m.version() <= found) {
                record(c, m, m.description() + " (found, applied by another tool)");
            }
        }
        return found;
    }

    private static void record(Connection c, Migration m, String description) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO outbox_schema_version (version, description) VALUES (?, ?)")) {
            ps.setInt(1, m.version());
            ps.setString(2, description);
            ps.executeUpdate();
        }
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
