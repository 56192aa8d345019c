package dev.postbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Test support on a JDBC connection: the jobs of a kind as a test sees them, moving waiting jobs
 * forward in time, and a clean slate between tests. For test code only.
 *
 * <p>Each method runs on the connection it is given (the test's own transaction, if it has one) and
 * does not commit; give it a connection from {@link PostboxSchema#connection(Connection)} when Postbox's tables
 * are in a schema of their own. The Spring Boot starter's {@code PostboxTestHelper} builds on it.
 */
public final class PostboxTestSupport {

    private PostboxTestSupport() {}

    private static final String JOBS_OF_KIND =
            "SELECT id, queue, kind, payload::text AS payload, idempotency_key, ordering_key,"
                    + " priority, state, attempts, run_at FROM outbox_job WHERE kind = ? ORDER BY id";

    private static final String ADVANCE_TIME = "UPDATE outbox_job SET run_at = run_at - ? * interval '1 microsecond'"
            + " WHERE state IN ('pending', 'retry')";

    private static final String RESET =
            "TRUNCATE outbox_job, outbox_dead_letter, outbox_job_archive, outbox_attempt, outbox_idempotency_key";

    /** A job waiting or running in {@code outbox_job}, its payload as JSON text. */
    public record WaitingJob(
            long id,
            String queue,
            String kind,
            String payloadJson,
            @Nullable String idempotencyKey,
            @Nullable String orderingKey,
            int priority,
            String state,
            int attempts,
            Instant runAt) {}

    /** The jobs of the kind in {@code outbox_job} (waiting or running), oldest first. */
    public static List<WaitingJob> jobsOfKind(Connection c, String kind) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JOBS_OF_KIND)) {
            ps.setString(1, kind);
            try (ResultSet rs = ps.executeQuery()) {
                List<WaitingJob> jobs = new ArrayList<>();
                while (rs.next()) {
                    jobs.add(new WaitingJob(
                            rs.getLong("id"),
                            rs.getString("queue"),
                            rs.getString("kind"),
                            rs.getString("payload"),
                            rs.getString("idempotency_key"),
                            rs.getString("ordering_key"),
                            rs.getInt("priority"),
                            rs.getString("state"),
                            rs.getInt("attempts"),
                            rs.getTimestamp("run_at").toInstant()));
                }
                return jobs;
            }
        }
    }

    /**
     * Makes waiting jobs (pending or retrying) due {@code by} earlier (whole microseconds, the
     * database's precision); returns how many moved. Running jobs and every clock stay as they are.
     *
     * @throws IllegalArgumentException if {@code by} is negative: time only moves forward
     */
    public static int advanceTime(Connection c, Duration by) throws SQLException {
        if (by.isNegative()) {
            throw new IllegalArgumentException("by may not be negative: time only moves forward, was " + by);
        }
        try (PreparedStatement ps = c.prepareStatement(ADVANCE_TIME)) {
            ps.setLong(1, by.toNanos() / 1000);
            return ps.executeUpdate();
        }
    }

    /** Deletes every job, dead letter, archived job, attempt and idempotency key. */
    public static void reset(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(RESET);
        }
    }
}
