package dev.postbox.http.webhook;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Lines up the waiting deliveries of a rate-limited endpoint in {@code outbox_job}: when a delivery
 * finds no permit, the endpoint's other due deliveries that no worker has claimed yet take the next
 * slots of the bucket's line ({@code outbox_rate_bucket.line_until}, shared by every process), one
 * per {@code 1 / rate}, as their {@code run_at}, in one statement. Without it, each of them would be
 * claimed, find no permit and be snoozed on its own: one claim and one write per waiting delivery,
 * competing with the other jobs of the queue. Lined up, they leave the claim path until their slot
 * comes, and a backlog of thousands costs one statement per {@value #BATCH}.
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
     * already lined up in the future are not read; the bucket's line grows by as many slots (from
     * its end, or {@code p.not_before} after now if later), and each delivery gets its slot plus a
     * random offset within it. The job rows are locked first, the bucket row after them; leases and
     * registrations lock the bucket row alone or after the endpoint row, never a job row.
     */
    private static final String LINE_UP = "WITH due AS (SELECT id, sort_at FROM outbox_job"
            + "   WHERE queue = ? AND endpoint = ? AND kind = ? AND state IN ('pending', 'retry')"
            + "     AND sort_at <= now() + interval '100 seconds' AND run_at <= now()"
            + "   ORDER BY sort_at, id LIMIT ? FOR UPDATE SKIP LOCKED),"
            + " n AS (SELECT count(*) AS c FROM due),"
            + " line AS (UPDATE outbox_rate_bucket b SET line_until = greatest(coalesce(b.line_until,"
            + "     clock_timestamp()), clock_timestamp() + ?::bigint * interval '1 microsecond')"
            + "     + n.c / b.rate_per_second * interval '1 second'"
            + "   FROM n WHERE b.endpoint = ? AND n.c > 0"
            + "   RETURNING b.line_until - n.c / b.rate_per_second * interval '1 second' AS first,"
            + "     1 / b.rate_per_second AS spacing),"
            + " slots AS (SELECT id, row_number() OVER (ORDER BY sort_at, id) - 1 AS slot FROM due)"
            + " UPDATE outbox_job j SET run_at = line.first + (s.slot + random()) * line.spacing * interval '1 second'"
            + " FROM slots s, line WHERE j.id = s.id";

    private final DataSource dataSource;
    private final String queue;

    DeliveryLine(DataSource dataSource, String queue) {
        this.dataSource = dataSource;
        this.queue = queue;
    }

    /**
     * Lines up to {@value #BATCH} due deliveries of {@code endpoint} at the end of its bucket's
     * line, not earlier than {@code notBefore} from now; returns how many.
     */
    int lineUp(String endpoint, Duration notBefore) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(LINE_UP)) {
                ps.setString(1, queue);
                ps.setString(2, endpoint);
                ps.setString(3, Webhooks.DELIVERY_KIND);
                ps.setInt(4, BATCH);
                ps.setLong(5, notBefore.toNanos() / 1000);
                ps.setString(6, endpoint);
                return ps.executeUpdate();
            }
        }
    }
}
