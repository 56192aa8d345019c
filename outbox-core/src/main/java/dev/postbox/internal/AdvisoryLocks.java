package dev.postbox.internal;

/**
 * The one place where Postbox's PostgreSQL advisory lock keys are made. Advisory locks are
 * database-wide, not per schema, so every key is scoped to one installation: two installations in
 * two schemas of one database ({@code postbox.schema.name}, or two applications with different
 * {@code search_path}s) never wait on each other's locks, while the nodes of one installation share
 * every key.
 *
 * <ul>
 *   <li>The engine's locks mix the lock's name with the oid of the installation's {@code outbox_job}
 *       table, which the statement resolves as it resolves every other Postbox table: through {@link
 *       SchemaQualifier} (a configured schema; it qualifies the {@code 'outbox_job'} literal) or the
 *       connection's {@code search_path}. One oid per table in a database, the same for every node.
 *   <li>The installer's lock is taken before any table (or the schema) exists, so it mixes the name
 *       of the schema being installed: the configured one, else the connection's current schema.
 * </ul>
 *
 * <p>Each constant is an SQL expression of type {@code bigint}, to be placed in {@code
 * pg_advisory_xact_lock(...)} and its siblings; parameters are listed per constant.
 */
public final class AdvisoryLocks {

    /** The installation's scope: the oid of its job table (see the class comment). */
    private static final String INSTALLATION = "'outbox_job'::regclass::oid::bigint";

    /**
     * Claims of a capped queue, serialised across the installation's nodes (transaction-scoped).
     * One parameter: the queue's name.
     */
    public static final String QUEUE_CAP = installationKey("'postbox.queue.' || ?");

    /**
     * Claims of a capped tenant, serialised across the installation's nodes (transaction-scoped).
     *
     * @param tenantKey an SQL expression of type text giving the tenant's key ({@code ''} for the
     *     default tenant), e.g. a column or {@code ?}
     */
    public static String tenantCap(String tenantKey) {
        return installationKey("'postbox.tenant.' || " + tenantKey);
    }

    /** Archive partition maintenance, one node at a time (session-scoped). No parameter. */
    public static final String ARCHIVE_MAINTENANCE = installationKey("'postbox.archive-maintenance'");

    /**
     * The schema installer, one at a time per schema (transaction-scoped). One parameter: the
     * configured schema's name, or null for the connection's current schema.
     */
    public static final String SCHEMA_INSTALLER =
            "hashtextextended('postbox.install.' || coalesce(?::text, current_schema()::text, ''), 0)";

    private AdvisoryLocks() {}

    private static String installationKey(String name) {
        return "hashtextextended(" + name + ", " + INSTALLATION + ")";
    }
}
