package dev.postbox.http.webhook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of {@code outbox_fanout}: one row per published event with its expansion cursor (the
 * last endpoint name expanded), in the caller's transaction.
 */
final class FanOutStore {

    /**
     * Starts (or keeps) the event's row. A row with another event's key is left over from an
     * earlier event that had this job id (the id sequence was rewound, e.g. by a restore): it is
     * started afresh instead of taken as expanded.
     */
    private static final String START = "INSERT INTO outbox_fanout (event_job_id, event_type, event_key)"
            + " VALUES (?, ?, ?) ON CONFLICT (event_job_id) DO UPDATE SET event_type = EXCLUDED.event_type,"
            + "   event_key = EXCLUDED.event_key, last_endpoint = NULL, expanded = 0, completed_at = NULL,"
            + "   updated_at = now()"
            + " WHERE EXCLUDED.event_key IS NOT NULL AND outbox_fanout.event_key IS DISTINCT FROM EXCLUDED.event_key";

    private static final String LOCK =
            "SELECT last_endpoint, completed_at IS NOT NULL" + " FROM outbox_fanout WHERE event_job_id = ? FOR UPDATE";

    private static final String COMPLETE =
            "UPDATE outbox_fanout SET completed_at = now(), updated_at = now() WHERE event_job_id = ?";

    private static final String ADVANCE = "UPDATE outbox_fanout SET last_endpoint = ?,"
            + " expanded = expanded + ?, updated_at = now() WHERE event_job_id = ?";

    private FanOutStore() {}

    /** Where an event's expansion stands: complete, or the cursor to go on after (null at the start). */
    record Progress(boolean complete, @Nullable String cursor) {}

    /** Starts the event's row if it has none (or a stale one) and locks it; returns its progress. */
    static Progress start(Connection c, long eventJobId, String eventType, @Nullable String eventKey)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(START)) {
            ps.setLong(1, eventJobId);
            ps.setString(2, eventType);
            ps.setString(3, eventKey);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(LOCK)) {
            ps.setLong(1, eventJobId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Progress(rs.getBoolean(2), rs.getString(1));
            }
        }
    }

    /** Marks the event's expansion complete. */
    static void complete(Connection c, long eventJobId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(COMPLETE)) {
            ps.setLong(1, eventJobId);
            ps.executeUpdate();
        }
    }

    /** Moves the cursor past {@code lastEndpoint}, counting {@code created} new deliveries. */
    static void advance(Connection c, long eventJobId, String lastEndpoint, int created) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ADVANCE)) {
            ps.setString(1, lastEndpoint);
            ps.setInt(2, created);
            ps.setLong(3, eventJobId);
            ps.executeUpdate();
        }
    }
}
