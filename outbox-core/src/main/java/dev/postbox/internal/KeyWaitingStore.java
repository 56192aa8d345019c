package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Jobs waiting for their ordering key (schema V11, marked at commit since V12): a job committed
 * behind a live job of its key and tenant gets {@code sort_at = 'infinity'}, outside the range every
 * claim reads, and the first remaining job of the key in commit order ({@code key_seq, id}) gets its
 * claim order back when a job of the key leaves the live table. Both are the schema's triggers; V12's
 * commit trigger locks a predecessor's row so that its deletion sees the new job. This sweep is the
 * safety net for what they still cannot see (a predecessor deleted by a tool with the triggers
 * disabled, say): it finds each key's first waiting job with no live job before it and gives it back
 * its order.
 */
public final class KeyWaitingStore {

    /** Marks a job waiting for its key; the claim never reads that far. */
    public static final String WAITING = "'infinity'::timestamptz";

    /**
     * Each key's oldest waiting job (an index range of the waiting rows only), kept when no older
     * job of its key and tenant is live; rows someone holds are left for the next pass.
     */
    private static final String RELEASE_STRANDED = "WITH heads AS ("
            + "   SELECT DISTINCT ON (w.ordering_key, coalesce(w.tenant, '')) w.id, w.key_seq, w.ordering_key,"
            + "     coalesce(w.tenant, '') AS t FROM outbox_job w WHERE w.sort_at = " + WAITING
            + "   ORDER BY w.ordering_key, coalesce(w.tenant, ''), w.key_seq, w.id),"
            + " stranded AS (SELECT j.id FROM outbox_job j JOIN heads h ON j.id = h.id"
            + "   WHERE j.sort_at = " + WAITING
            + "     AND NOT EXISTS (SELECT 1 FROM outbox_job o WHERE o.ordering_key = h.ordering_key"
            + "       AND coalesce(o.tenant, '') = h.t AND (o.key_seq, o.id) < (h.key_seq, h.id))"
            + "   LIMIT ? FOR UPDATE OF j SKIP LOCKED)"
            + " UPDATE outbox_job j SET sort_at = j.run_at - j.priority * interval '1 second'"
            + "  FROM stranded s WHERE j.id = s.id";

    private KeyWaitingStore() {}

    /** Gives at most {@code limit} stranded waiting jobs their claim order back; returns how many. */
    public static int releaseStranded(Connection c, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(RELEASE_STRANDED)) {
            ps.setInt(1, limit);
            return ps.executeUpdate();
        }
    }
}
