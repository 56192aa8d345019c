package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.nullableInstant;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The schedules page's recent fires: a schedule's latest fires and their jobs, wherever the jobs
 * are now.
 *
 * <p>Planner note ({@code RECENT_FIRES}, proven with EXPLAIN in ConsoleStatementPlanTest): the
 * partial {@code fire_key} indexes of live, archived and dead jobs, one range of keys per schedule.
 */
public final class ScheduleFireStore {

    /** Fire keys compare in byte order (the indexes are COLLATE "C"), so one schedule's keys are one range. */
    private static final String FIRE_KEY = "(fire_key COLLATE \"C\")";

    static final String RECENT_FIRES = "SELECT * FROM ("
            + " (SELECT " + FIRE_KEY + " AS k, id, CASE WHEN state = 'pending' AND run_at > now() THEN 'scheduled'"
            + "   ELSE state END AS state, attempts, left(last_error, 300) AS last_error,"
            + "   NULL::timestamptz AS finished_at FROM outbox_job WHERE fire_key IS NOT NULL"
            + "   AND " + FIRE_KEY + " >= ? AND " + FIRE_KEY + " < ? ORDER BY 1 DESC LIMIT ?)"
            + " UNION ALL (SELECT " + FIRE_KEY + ", id, state, attempts, left(last_error, 300), finished_at"
            + "   FROM outbox_job_archive WHERE fire_key IS NOT NULL"
            + "   AND " + FIRE_KEY + " >= ? AND " + FIRE_KEY + " < ? ORDER BY 1 DESC LIMIT ?)"
            + " UNION ALL (SELECT " + FIRE_KEY + ", id, 'dead', attempts, left(last_error, 300), dead_at"
            + "   FROM outbox_dead_letter WHERE fire_key IS NOT NULL"
            + "   AND " + FIRE_KEY + " >= ? AND " + FIRE_KEY + " < ? ORDER BY 1 DESC LIMIT ?)"
            + ") f ORDER BY k DESC, id DESC LIMIT ?";

    private final ConsoleDatabase database;

    public ScheduleFireStore(ConsoleDatabase database) {
        this.database = database;
    }

    /** A materialised fire of a schedule and its job, wherever the job is now. */
    public record Fire(
            Instant fireAt,
            long jobId,
            String state,
            int attempts,
            @Nullable String lastError,
            @Nullable Instant finishedAt) {}

    /** The latest fires of a schedule, newest first (fire keys are {@code name@<instant>}). */
    public List<Fire> recentFires(String schedule, int limit) {
        String from = schedule + "@";
        String to = schedule + "A"; // 'A' follows '@': every key of this schedule sorts in [from, to)
        return database.list(
                RECENT_FIRES,
                ps -> {
                    for (int table = 0; table < 3; table++) {
                        ps.setString(table * 3 + 1, from);
                        ps.setString(table * 3 + 2, to);
                        ps.setInt(table * 3 + 3, limit);
                    }
                    ps.setInt(10, limit);
                },
                rs -> new Fire(
                        Instant.parse(rs.getString(1).substring(from.length())),
                        rs.getLong(2),
                        rs.getString(3),
                        rs.getInt(4),
                        rs.getString(5),
                        nullableInstant(rs, 6)));
    }
}
