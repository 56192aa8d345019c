package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The queues of the overview and the queues page: live and dead jobs counted per queue and lane, and
 * each queue's stored configuration (pause, concurrency cap).
 *
 * <p>Planner note ({@code LANE_COUNTS}): one pass over the live table (kept small by design:
 * finished jobs leave it) and one over the dead letters (a count of every row; the planner rightly
 * prefers a sequential scan to any index for that).
 */
public final class QueueStore {

    static final String LANE_COUNTS = "WITH live AS (SELECT queue, lane,"
            + "   count(*) FILTER (WHERE state = 'pending' AND run_at <= now()) AS pending,"
            + "   count(*) FILTER (WHERE state = 'pending' AND run_at > now()) AS scheduled,"
            + "   count(*) FILTER (WHERE state = 'retry') AS retrying,"
            + "   count(*) FILTER (WHERE state = 'running') AS running,"
            + "   min(run_at) FILTER (WHERE state IN ('pending', 'retry') AND run_at <= now()) AS oldest_due"
            + "   FROM outbox_job GROUP BY queue, lane),"
            + " dead AS (SELECT queue, CASE WHEN priority > 0 THEN 1 WHEN priority < 0 THEN -1 ELSE 0 END AS lane,"
            + "   count(*) AS dead FROM outbox_dead_letter GROUP BY 1, 2)"
            + " SELECT coalesce(l.queue, d.queue), coalesce(l.lane, d.lane), coalesce(l.pending, 0),"
            + "   coalesce(l.scheduled, 0), coalesce(l.retrying, 0), coalesce(l.running, 0), coalesce(d.dead, 0),"
            + "   coalesce((extract(epoch FROM now() - l.oldest_due) * 1000)::bigint, 0)"
            + " FROM live l FULL JOIN dead d ON d.queue = l.queue AND d.lane = l.lane"
            + " ORDER BY 1, 2 DESC";

    static final String QUEUE_CONFIG = "SELECT name, paused, max_concurrency, updated_at FROM outbox_queue";

    private final ConsoleDatabase database;

    public QueueStore(ConsoleDatabase database) {
        this.database = database;
    }

    /** Live and dead counts of one queue's lane (1 high, 0 normal, -1 low priority). */
    public record LaneCounts(
            String queue,
            int lane,
            long pending,
            long scheduled,
            long retrying,
            long running,
            long dead,
            Duration oldestDueAge) {}

    public List<LaneCounts> laneCounts() {
        return database.list(
                LANE_COUNTS,
                ps -> {},
                rs -> new LaneCounts(
                        rs.getString(1),
                        rs.getInt(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getLong(5),
                        rs.getLong(6),
                        rs.getLong(7),
                        Duration.ofMillis(Math.max(0, rs.getLong(8)))));
    }

    /** A queue's stored configuration (a queue without a row is active and uncapped). */
    public record QueueConfig(
            String name, boolean paused, @Nullable Integer maxConcurrency, Instant updatedAt) {}

    public Map<String, QueueConfig> queueConfigs() {
        Map<String, QueueConfig> byName = new LinkedHashMap<>();
        for (QueueConfig q : database.list(
                QUEUE_CONFIG,
                ps -> {},
                rs -> new QueueConfig(rs.getString(1), rs.getBoolean(2), (Integer) rs.getObject(3), instant(rs, 4)))) {
            byName.put(q.name(), q);
        }
        return byName;
    }
}
