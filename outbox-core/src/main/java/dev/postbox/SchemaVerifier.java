package dev.postbox;

import dev.postbox.internal.SchemaQualifier;
import dev.postbox.internal.Transactions;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import javax.sql.DataSource;

/**
 * Checks a database before Postbox uses it: that it is PostgreSQL {@value #MINIMUM_POSTGRESQL_VERSION}
 * or newer, and which of the shipped migrations ({@link SchemaInstaller#migrations()}) it lacks. A
 * migration counts as applied when everything it creates exists (its tables and indexes, the columns
 * it adds: {@link SchemaInstaller.Migration#objects()}, looked up on the connection's {@code
 * search_path}, or in the schema of a {@link PostboxSchema#dataSource schema's DataSource}) and what it drops is gone (a trigger), whoever applied it: {@link SchemaInstaller},
 * Flyway, Liquibase or a DBA.
 *
 * <p>The minimum is PostgreSQL 12 because the schema uses a stored generated column ({@code
 * outbox_job.lane}, new in 12); triggers {@code EXECUTE FUNCTION} and a default partition of the
 * archive need 11. CI tests PostgreSQL 15 and 17.
 */
public final class SchemaVerifier {

    /** The oldest PostgreSQL major version Postbox's schema runs on. */
    public static final int MINIMUM_POSTGRESQL_VERSION = 12;

    private static final String POSTGRESQL = "PostgreSQL";

    private final DataSource dataSource;

    public SchemaVerifier(DataSource dataSource) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
    }

    /**
     * Fails unless the database is PostgreSQL {@value #MINIMUM_POSTGRESQL_VERSION} or newer.
     *
     * @throws IllegalStateException naming the database found and the minimum
     */
    public void requireSupportedDatabase() {
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            String product = meta.getDatabaseProductName();
            String version = meta.getDatabaseProductVersion();
            if (!POSTGRESQL.equals(product)) {
                throw new IllegalStateException("Postbox needs PostgreSQL " + MINIMUM_POSTGRESQL_VERSION
                        + " or newer, but its DataSource is " + product + " " + version
                        + ". Postbox's schema and queries are PostgreSQL's own (jsonb, SKIP LOCKED, LISTEN/NOTIFY,"
                        + " partitions): point Postbox at a PostgreSQL database, in tests too.");
            }
            int major = meta.getDatabaseMajorVersion();
            if (major < MINIMUM_POSTGRESQL_VERSION) {
                throw new IllegalStateException("Postbox needs PostgreSQL " + MINIMUM_POSTGRESQL_VERSION
                        + " or newer (its schema uses stored generated columns), but its DataSource is PostgreSQL "
                        + version + ". Upgrade the server, or point Postbox at a newer one.");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Postbox could not read its database's product and version: " + e.getMessage(), e);
        }
    }

    /** The shipped migrations this database lacks (something they create is missing), in version order. */
    public List<SchemaInstaller.Migration> missingMigrations() {
        try {
            return inSchema(c -> missingMigrations(c));
        } catch (SQLException e) {
            throw checkFailed(e);
        }
    }

    /**
     * What the shipped migrations create and this database lacks, in migration order: tables and
     * indexes by name, columns as {@code table.column}; and the triggers they drop that this database
     * still has (or whose table it lacks), as {@code trigger <name> on <table> dropped}.
     */
    public Set<String> missingObjects() {
        try {
            return inSchema(c -> missingObjects(c, SchemaInstaller.migrations()));
        } catch (SQLException e) {
            throw checkFailed(e);
        }
    }

    /**
     * The version up to which every shipped migration is applied: 0 on a database without Postbox's
     * tables, the newest version on a complete one.
     */
    public int installedVersion() {
        try {
            return inSchema(c -> installedVersion(c));
        } catch (SQLException e) {
            throw checkFailed(e);
        }
    }

    /**
     * Runs the check where Postbox's tables are: on a connection of the DataSource, or for a named
     * schema ({@link PostboxSchema#dataSource}) in a transaction whose search_path is that schema.
     */
    private <T> T inSchema(Transactions.Work<T> work) throws SQLException {
        Optional<String> schema = PostboxSchema.of(dataSource).name();
        if (schema.isPresent()) {
            return SchemaQualifier.of(schema.get()).inSchema(PostboxSchema.unqualified(dataSource), work);
        }
        try (Connection c = dataSource.getConnection()) {
            return work.run(c);
        }
    }

    static int installedVersion(Connection c) throws SQLException {
        int installed = 0;
        List<SchemaInstaller.Migration> missing = missingMigrations(c);
        for (SchemaInstaller.Migration m : SchemaInstaller.migrations()) {
            if (missing.contains(m)) {
                break;
            }
            installed = m.version();
        }
        return installed;
    }

    private static List<SchemaInstaller.Migration> missingMigrations(Connection c) throws SQLException {
        List<SchemaInstaller.Migration> migrations = SchemaInstaller.migrations();
        Set<String> missingObjects = missingObjects(c, migrations);
        List<SchemaInstaller.Migration> missing = new ArrayList<>();
        for (SchemaInstaller.Migration m : migrations) {
            if (m.objects().stream().anyMatch(missingObjects::contains)) {
                missing.add(m);
            }
        }
        return missing;
    }

    private static Set<String> missingObjects(Connection c, List<SchemaInstaller.Migration> migrations)
            throws SQLException {
        List<String> objects = new ArrayList<>();
        List<String> relations = new ArrayList<>();
        migrations.forEach(m -> objects.addAll(m.objects()));
        // An index a later migration drops is not required of the migration that created it.
        Set<String> droppedLater = new java.util.HashSet<>();
        for (String o : objects) {
            Matcher index = SchemaInstaller.Migration.DROPPED_INDEX.matcher(o);
            if (index.matches()) {
                droppedLater.add(index.group(1));
            }
        }
        objects.removeAll(droppedLater);
        for (String o : objects) {
            if (!SchemaInstaller.Migration.DROPPED_TRIGGER.matcher(o).matches()
                    && !SchemaInstaller.Migration.DROPPED_INDEX.matcher(o).matches()) {
                relations.add(o);
            }
        }
        Set<String> missingRelations = new LinkedHashSet<>();
        // A relation by name (to_regclass), or a column as relation.column (pg_attribute).
        try (PreparedStatement ps = c.prepareStatement("SELECT o FROM unnest(?::text[]) WITH ORDINALITY AS x(o, n)"
                + " WHERE CASE WHEN strpos(o, '.') = 0 THEN to_regclass(o) IS NULL"
                + "   ELSE NOT EXISTS (SELECT 1 FROM pg_attribute a"
                + "     WHERE a.attrelid = to_regclass(split_part(o, '.', 1))"
                + "       AND a.attname = split_part(o, '.', 2) AND NOT a.attisdropped) END"
                + " ORDER BY n")) {
            Array names = c.createArrayOf("text", relations.toArray());
            ps.setArray(1, names);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    missingRelations.add(rs.getString(1));
                }
            }
        }
        Set<String> missing = new LinkedHashSet<>();
        for (String o : objects) {
            Matcher trigger = SchemaInstaller.Migration.DROPPED_TRIGGER.matcher(o);
            Matcher index = SchemaInstaller.Migration.DROPPED_INDEX.matcher(o);
            if (trigger.matches()
                    ? !dropped(c, trigger.group(1), trigger.group(2))
                    : index.matches() ? !indexDropped(c, index.group(1)) : missingRelations.contains(o)) {
                missing.add(o);
            }
        }
        return missing;
    }

    /** Whether no relation has the index's name (a migration that drops it has run). */
    private static boolean indexDropped(Connection c, String index) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NULL")) {
            ps.setString(1, index);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Whether the table exists without the trigger (a migration that drops it has run). */
    private static boolean dropped(Connection c, String trigger, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL AND NOT EXISTS"
                + " (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = to_regclass(?) AND t.tgname = ?)")) {
            ps.setString(1, table);
            ps.setString(2, table);
            ps.setString(3, trigger);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static IllegalStateException checkFailed(SQLException e) {
        return new IllegalStateException("Postbox could not check its tables: " + e.getMessage(), e);
    }
}
