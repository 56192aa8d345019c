package dev.postbox.http.webhook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Lines up the waiting deliveries of a rate-limited endpoint in {@code outbox_job}: when a delivery
 * finds no permit, the endpoint's other due deliveries that no worker has claimed yet are given
 * later {@code run_at}s, one slot of {@code 1 / rate} each, in one statement. Without it, each of
 * them would be claimed, find no permit and be snoozed on its own: one claim and one write per
 * waiting delivery, competing with the other jobs of the queue. Lined up, they leave the claim path
 * until their slot comes, and a backlog of thousands costs one statement per {@value #BATCH}.
 *
 * <p>Only {@code run_at} changes (the claim order {@code sort_at} follows through the table's
 * trigger): no attempt is charged, no lease is touched, rows a worker is claiming are skipped
 * ({@code SKIP LOCKED}), and per-key order still holds (the claim lets only the oldest job of an
 * ordering key run, whatever the run times). It is the bulk form of a snooze.
 */
final class DeliveryLine {

    /** Most deliveries lined up by one statement. */
    static final int BATCH = 10_000;

    /**
     * Due, unclaimed deliveries of the endpoint in claim order, bounded like the claim's index scan
     * (sort_at at most 100 s ahead of now, the highest priority's head start) so that deliveries
     * already lined up in the future are not read; each gets the next slot plus a random offset
     * within it.
     */
    private static final String LINE_UP = "WITH due AS (SELECT id, sort_at FROM outbox_job"
            + "   WHERE queue = ? AND endpoint = ? AND kind = ? AND state IN ('pending', 'retry')"
            + "     AND sort_at <= now() + interval '100 seconds' AND run_at <= now()"
            + "   ORDER BY sort_at, id LIMIT ? FOR UPDATE SKIP LOCKED),"
            + " slots AS (SELECT id, row_number() OVER (ORDER BY sort_at, id) - 1 AS slot FROM due)"
            + " UPDATE outbox_job j SET run_at = now()"
            + "   + (?::bigint + (s.slot + random()) * ?::bigint) * interval '1 microsecond'"
            + " FROM slots s WHERE j.id = s.id";

    private final DataSource dataSource;
    private final String queue;

    DeliveryLine(DataSource dataSource, String queue) {
        this.dataSource = dataSource;
        this.queue = queue;
    }

    /**
     * Lines up to {@value #BATCH} due deliveries of {@code endpoint} from {@code firstSlot} on, one
     * per {@code spacing}; returns how many.
     */
    int lineUp(String endpoint, Duration firstSlot, Duration spacing) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(LINE_UP)) {
                ps.setString(1, queue);
                ps.setString(2, endpoint);
                ps.setString(3, WebhookDeliveryHandler.KIND);
                ps.setInt(4, BATCH);
                ps.setLong(5, firstSlot.toNanos() / 1000);
                ps.setLong(6, Math.max(1, spacing.toNanos() / 1000));
                return ps.executeUpdate();
            }
        }
    }
}
