package dev.postbox.http.inbox;

import dev.postbox.PostboxSchema;
import dev.postbox.Require;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The SQL of one inbox table: record a {@code webhook-id} (in the caller's transaction, with the
 * receiver's writes), purge old records, and the table's DDL. The table name is configuration,
 * validated as a plain identifier before it reaches a statement; values are always parameters.
 */
final class InboxStore {

    private static final Pattern IDENTIFIER =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final String table;
    private final String insert;
    private final String purge;

    InboxStore(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.table = requireIdentifier(table);
        this.insert = "INSERT INTO " + table + " (webhook_id, webhook_timestamp) VALUES (?, ?)"
                + " ON CONFLICT (webhook_id) DO NOTHING";
        this.purge = "DELETE FROM " + table + " WHERE received_at < now() - ?::bigint * interval '1 millisecond'";
    }

    String table() {
        return table;
    }

    /** The DDL of an inbox table with the given (validated) name. */
    static String createTableSql(String table) {
        requireIdentifier(table);
        return "CREATE TABLE IF NOT EXISTS " + table + " (webhook_id text PRIMARY KEY, webhook_timestamp timestamptz,"
                + " received_at timestamptz NOT NULL DEFAULT now())";
    }

    /**
     * Records the id on the connection of the current (Spring-managed) transaction; {@code false}
     * when it was recorded already (a duplicate).
     */
    boolean record(String webhookId, Instant timestamp) throws SQLException {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try (PreparedStatement ps = PostboxSchema.of(dataSource).connection(c).prepareStatement(insert)) {
            ps.setString(1, webhookId);
            ps.setTimestamp(2, Timestamp.from(timestamp));
            return ps.executeUpdate() > 0;
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /** Deletes the records received more than {@code age} ago; returns how many. */
    int purgeOlderThan(Duration age) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(purge)) {
                ps.setLong(1, age.toMillis());
                return ps.executeUpdate();
            }
        }
    }

    static String requireIdentifier(String table) {
        Require.notNull(table, "table");
        if (!IDENTIFIER.matcher(table).matches()) {
            throw new IllegalArgumentException("inbox table name '" + table + "' is not a plain SQL identifier:"
                    + " use letters, digits and '_' (optionally schema.table), e.g. 'postbox_inbox'");
        }
        return table;
    }
}
