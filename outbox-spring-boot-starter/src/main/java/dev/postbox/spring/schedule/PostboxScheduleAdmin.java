package dev.postbox.spring.schedule;

import dev.postbox.cron.ScheduleRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Reads and controls the stored schedules: their definition, pause state and next fire from {@code
 * outbox_schedule}, their recent fires with job ids and outcomes from the view {@code
 * outbox_schedule_fire}, and pause/resume through {@link ScheduleRegistry}. Used by the {@code
 * postbox} actuator endpoint; usable directly.
 */
public class PostboxScheduleAdmin {

    private static final String SCHEDULES = "SELECT name, cron, zone, kind, queue, paused, next_fire_at, last_fire_at,"
            + " last_job_id, dst_gap_policy, missed_fire_policy, overlap_policy, tenant FROM outbox_schedule";

    private static final String HISTORY = "SELECT schedule_name, fire_at, job_id, state, attempts, last_error,"
            + " created_at, finished_at FROM (SELECT f.*, row_number() OVER (PARTITION BY schedule_name"
            + " ORDER BY fire_at DESC, job_id DESC) AS rn FROM outbox_schedule_fire f) h WHERE rn <= ?";

    private final DataSource dataSource;
    private final ScheduleRegistry registry;

    public PostboxScheduleAdmin(DataSource dataSource, ScheduleRegistry registry) {
        this.dataSource = dataSource;
        this.registry = registry;
    }

    /** Every stored schedule by name, each with its latest {@code historyLimit} fires (newest first). */
    public List<ScheduleView> schedules(int historyLimit) {
        return query(null, historyLimit);
    }

    /** One stored schedule with its latest {@code historyLimit} fires; empty when there is none. */
    public Optional<ScheduleView> schedule(String name, int historyLimit) {
        return query(name, historyLimit).stream().findFirst();
    }

    /**
     * Pauses a schedule cluster-wide: no fires become jobs until it is resumed.
     *
     * @return false when it was already paused
     * @throws IllegalArgumentException when no schedule has that name
     */
    public boolean pause(String name) {
        return registry.pause(name);
    }

    /**
     * Resumes a schedule; fires that fell due while it was paused follow its missed-fire policy.
     *
     * @return false when it was not paused
     * @throws IllegalArgumentException when no schedule has that name
     */
    public boolean resume(String name) {
        return registry.resume(name);
    }

    private List<ScheduleView> query(@Nullable String name, int historyLimit) {
        try (Connection c = dataSource.getConnection()) {
            Map<String, List<FireView>> history = new HashMap<>();
            if (historyLimit > 0) {
                String sql = HISTORY + (name != null ? " AND schedule_name = ?" : "")
                        + " ORDER BY schedule_name, fire_at DESC, job_id DESC";
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setInt(1, historyLimit);
                    if (name != null) {
                        ps.setString(2, name);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            history.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                                    .add(new FireView(
                                            instant(rs, 2),
                                            rs.getLong(3),
                                            rs.getString(4),
                                            rs.getInt(5),
                                            rs.getString(6),
                                            instant(rs, 7),
                                            instant(rs, 8)));
                        }
                    }
                }
            }
            List<ScheduleView> schedules = new ArrayList<>();
            String sql = SCHEDULES + (name != null ? " WHERE name = ?" : "") + " ORDER BY name";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                if (name != null) {
                    ps.setString(1, name);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String scheduleName = rs.getString(1);
                        Long lastJobId = rs.getObject(9, Long.class);
                        schedules.add(new ScheduleView(
                                scheduleName,
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5),
                                rs.getBoolean(6),
                                instant(rs, 7),
                                instant(rs, 8),
                                lastJobId,
                                rs.getString(10),
                                rs.getString(11),
                                rs.getString(12),
                                List.copyOf(history.getOrDefault(scheduleName, List.of())),
                                rs.getString(13)));
                    }
                }
            }
            return schedules;
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the Postbox schedules failed: " + e.getMessage(), e);
        }
    }

    private static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    /**
     * A stored schedule.
     *
     * @param nextFireAt the next fire not yet materialised (null: never fires again)
     * @param lastFireAt the latest fire materialised as a job
     * @param lastJobId that fire's job
     * @param recentFires the latest fires, newest first, with their jobs' current state
     * @param tenant the tenant its fires' jobs belong to, null for the default tenant
     */
    public record ScheduleView(
            String name,
            String cron,
            String zone,
            String kind,
            String queue,
            boolean paused,
            @Nullable Instant nextFireAt,
            @Nullable Instant lastFireAt,
            @Nullable Long lastJobId,
            String dstGapPolicy,
            String missedFirePolicy,
            String overlapPolicy,
            List<FireView> recentFires,
            @Nullable String tenant) {}

    /**
     * One materialised fire and its job, wherever the job is now.
     *
     * @param state pending, retry, running, done, cancelled, expired or dead
     * @param finishedAt when the job finished (archived or dead-lettered); null while live
     */
    public record FireView(
            @Nullable Instant fireAt,
            long jobId,
            String state,
            int attempts,
            @Nullable String lastError,
            @Nullable Instant createdAt,
            @Nullable Instant finishedAt) {}
}
