package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * This installation's id ({@code outbox_installation}, schema V8) and since when it exists. A job
 * created at or after {@link #since()} gets the installation-unique generated key; an older one keeps
 * the legacy key {@code postbox-<id>} that it may already have been sent with.
 */
public record Installation(String id, Instant since) {

    /** Reads the installation row; null while the schema predates V8. */
    public static @Nullable Installation read(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass('outbox_installation') IS NOT NULL");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return null;
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT id, created_at FROM outbox_installation");
                ResultSet rs = ps.executeQuery()) {
            return rs.next()
                    ? new Installation(rs.getString(1), rs.getTimestamp(2).toInstant())
                    : null;
        }
    }

    /** The installation id for a job created at {@code createdAt}; null for a job older than the id. */
    public @Nullable String idFor(Instant createdAt) {
        return createdAt.isBefore(since) ? null : id;
    }
}
