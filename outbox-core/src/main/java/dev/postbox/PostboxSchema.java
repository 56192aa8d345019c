package dev.postbox;

import dev.postbox.internal.QualifyingDataSource;
import dev.postbox.internal.SchemaQualifier;
import java.sql.Connection;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL schema that holds Postbox's tables, sequences, functions and archive partitions.
 *
 * <p>By default ({@link #searchPath()}) Postbox names its tables unqualified, and they are the ones
 * the connection's {@code search_path} finds, as in every Postbox version before. A {@link #named
 * named} schema puts them in that schema: {@link #dataSource(DataSource)} gives the {@code
 * DataSource} to hand to Postbox (the engine, the installer, the delivery module, the schedules),
 * whose connections name every Postbox table, sequence and function in Postbox's statements
 * schema-qualified, whatever the connection's {@code search_path} is. The application's own
 * statements are not changed, and its connections are not changed either (no {@code SET
 * search_path}): Postbox runs in the caller's transaction on the caller's connection.
 *
 * <pre>{@code
 * DataSource postboxData = PostboxSchema.named("billing").dataSource(dataSource);
 * new SchemaInstaller(postboxData).install();          // creates schema billing and its tables
 * Postbox postbox = Postbox.builder(postboxData).build();
 * }</pre>
 *
 * Two installations in two schemas of one database are independent: each sees only its own jobs,
 * maintains only its own archive partitions and wakes its workers on its own notification channel
 * ({@link #channel()}). Set the same schema on every process of one installation.
 */
public final class PostboxSchema {

    /** The notification channel of the default (search_path) installation, as in every version before. */
    public static final String DEFAULT_CHANNEL = "postbox_job";

    /**
     * The longest schema name: the notification channel {@code postbox_job_<name>} must fit
     * PostgreSQL's 63-byte identifiers.
     */
    public static final int MAX_NAME_LENGTH = 51;

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");
    private static final PostboxSchema SEARCH_PATH = new PostboxSchema(null);

    private final @Nullable String name;

    private PostboxSchema(@Nullable String name) {
        this.name = name;
    }

    /** The default: Postbox's tables are the ones the connection's {@code search_path} finds. */
    public static PostboxSchema searchPath() {
        return SEARCH_PATH;
    }

    /**
     * The schema with this name: lower-case letters, digits and underscores, starting with a letter or
     * an underscore, at most {@value #MAX_NAME_LENGTH} characters, not a system schema.
     *
     * @throws IllegalArgumentException naming the rule the name breaks and how to fix it
     */
    public static PostboxSchema named(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("schema name may not be blank: name the PostgreSQL schema for Postbox's"
                    + " tables (e.g. \"postbox\"), or leave it unset to use the connection's search_path");
        }
        if (!NAME.matcher(name).matches() || name.length() > MAX_NAME_LENGTH) {
            String hint = NAME.matcher(name.toLowerCase(Locale.ROOT)).matches() && name.length() <= MAX_NAME_LENGTH
                    ? " (write it in lower case: \"" + name.toLowerCase(Locale.ROOT) + "\")"
                    : "";
            throw new IllegalArgumentException("schema name \"" + name + "\" is not usable: use 1 to " + MAX_NAME_LENGTH
                    + " lower-case letters, digits and underscores, starting with a letter or an underscore,"
                    + " e.g. \"billing_postbox\"" + hint);
        }
        if (name.startsWith("pg_") || name.equals("information_schema")) {
            throw new IllegalArgumentException("schema name \"" + name + "\" is not usable: it is reserved for"
                    + " PostgreSQL's system schemas; choose another, e.g. \"postbox\"");
        }
        return new PostboxSchema(name);
    }

    /**
     * The schema of a {@code DataSource}: the named schema of one made by {@link #dataSource}, else
     * {@link #searchPath()}.
     */
    public static PostboxSchema of(DataSource dataSource) {
        Require.notNull(dataSource, "dataSource");
        return dataSource instanceof QualifyingDataSource qualifying ? qualifying.schema() : SEARCH_PATH;
    }

    /**
     * The {@code DataSource} without Postbox's qualification: the one given to {@link #dataSource},
     * or {@code dataSource} itself. For tools that run Postbox's migration scripts as they are
     * (Flyway, Liquibase), with the schema as their default schema.
     */
    public static DataSource unqualified(DataSource dataSource) {
        Require.notNull(dataSource, "dataSource");
        return dataSource instanceof QualifyingDataSource qualifying ? qualifying.getWrappedObject() : dataSource;
    }

    /** The schema's name; empty for {@link #searchPath()}. */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /**
     * The {@code LISTEN}/{@code NOTIFY} channel on which this installation's processes wake each
     * other: {@value #DEFAULT_CHANNEL} for {@link #searchPath()}, {@code postbox_job_<name>} for a named
     * schema, so that installations in two schemas do not wake each other.
     */
    public String channel() {
        return name == null ? DEFAULT_CHANNEL : DEFAULT_CHANNEL + "_" + name;
    }

    /**
     * The {@code DataSource} to hand to Postbox: {@code dataSource} itself for {@link #searchPath()};
     * for a named schema, one whose connections qualify Postbox's tables, sequences and functions
     * with the schema in every statement they prepare or execute. It joins the transactions of
     * {@code dataSource} (Spring's transaction synchronisation sees through it).
     */
    public DataSource dataSource(DataSource dataSource) {
        Require.notNull(dataSource, "dataSource");
        DataSource target = unqualified(dataSource);
        return name == null ? target : new QualifyingDataSource(target, this, SchemaQualifier.of(name));
    }

    /**
     * A connection that qualifies Postbox's statements for this schema: {@code connection} itself for
     * {@link #searchPath()}. For modules that prepare Postbox statements on a connection of the
     * caller's transaction (which Spring hands out unwrapped); statements are passed on unchanged
     * except for the schema, on the same connection and transaction.
     */
    public Connection connection(Connection connection) {
        Require.notNull(connection, "connection");
        return name == null ? connection : SchemaQualifier.of(name).connection(connection);
    }

    /**
     * The statement with Postbox's tables, sequences and functions qualified for this schema (as
     * Postbox's own statements are); unchanged for {@link #searchPath()}. For SQL of yours that reads
     * Postbox's tables on a connection you hold, e.g. {@code jdbc.query(schema.qualify("SELECT count(*)
     * FROM outbox_dead_letter"), ...)}.
     */
    public String qualify(String sql) {
        Require.notNull(sql, "sql");
        return name == null ? sql : SchemaQualifier.of(name).qualify(sql);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof PostboxSchema other && java.util.Objects.equals(name, other.name);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hashCode(name);
    }

    @Override
    public String toString() {
        return name == null ? "search_path" : "schema " + name;
    }
}
