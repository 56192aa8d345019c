package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;

import java.time.Instant;
import java.util.List;

/**
 * The overview's chart: the last hour per minute, jobs done, failed attempts and jobs dead-lettered.
 *
 * <p>Planner note ({@code LAST_HOUR}, proven with EXPLAIN in ConsoleStatementPlanTest): BRIN {@code
 * outbox_job_archive_finished_brin} (only the last hour's pages of the current partitions), {@code
 * outbox_attempt_finished_idx} and {@code outbox_dead_letter_dead_at_idx}, each a range of one hour.
 */
public final class LastHourStore {

    static final String LAST_HOUR = "WITH m AS (SELECT generate_series(date_trunc('minute', now())"
            + "   - interval '59 minutes', date_trunc('minute', now()), interval '1 minute') AS minute),"
            + " done AS (SELECT date_trunc('minute', finished_at) AS minute, count(*) AS n FROM outbox_job_archive"
            + "   WHERE finished_at >= date_trunc('minute', now()) - interval '59 minutes' AND state = 'done'"
            + "   GROUP BY 1),"
            + " failed AS (SELECT date_trunc('minute', finished_at) AS minute, count(*) AS n FROM outbox_attempt"
            + "   WHERE finished_at >= date_trunc('minute', now()) - interval '59 minutes'"
            + "   AND outcome IN ('retry', 'dead', 'lease_expired') GROUP BY 1),"
            + " dead AS (SELECT date_trunc('minute', dead_at) AS minute, count(*) AS n FROM outbox_dead_letter"
            + "   WHERE dead_at >= date_trunc('minute', now()) - interval '59 minutes' GROUP BY 1)"
            + " SELECT m.minute, coalesce(done.n, 0), coalesce(failed.n, 0), coalesce(dead.n, 0) FROM m"
            + " LEFT JOIN done ON done.minute = m.minute LEFT JOIN failed ON failed.minute = m.minute"
            + " LEFT JOIN dead ON dead.minute = m.minute ORDER BY m.minute";

    private final ConsoleDatabase database;

    public LastHourStore(ConsoleDatabase database) {
        this.database = database;
    }

    /** One minute of the last hour: jobs done, failed attempts, jobs dead-lettered. */
    public record Minute(Instant minute, long done, long failed, long dead) {}

    public List<Minute> lastHour() {
        return database.list(
                LAST_HOUR, ps -> {}, rs -> new Minute(instant(rs, 1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
    }
}
