package dev.postbox.cron.internal;

import dev.postbox.cron.DstGapPolicy;
import dev.postbox.cron.MissedFirePolicy;
import dev.postbox.cron.OverlapPolicy;
import dev.postbox.cron.ScheduleDefinition;
import dev.postbox.cron.ScheduleFire;
import dev.postbox.cron.StoredSchedule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of {@code outbox_schedule}: every statement on that table lives here, and the read of the
 * schedules' recent fires from the view {@code outbox_schedule_fire}.
 */
public final class ScheduleStore {

    private static final String DATABASE_NOW = "SELECT now() + ?::bigint * interval '1 millisecond'";

    private static final String DEFINITION_COLUMNS = "name, cron, zone, kind, queue, payload, dst_gap_policy,"
            + " missed_fire_policy, overlap_policy, misfire_threshold_ms, tenant";

    /**
     * Inserts a new schedule or updates a changed one. A change of the timing (cron, zone, gap
     * policy) restarts the schedule from the given next fire; other changes keep its fire state.
     */
    private static final String UPSERT = "INSERT INTO outbox_schedule (" + DEFINITION_COLUMNS + ", next_fire_at)"
            + " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, zone = excluded.zone, kind = excluded.kind,"
            + "   queue = excluded.queue, payload = excluded.payload, dst_gap_policy = excluded.dst_gap_policy,"
            + "   missed_fire_policy = excluded.missed_fire_policy, overlap_policy = excluded.overlap_policy,"
            + "   misfire_threshold_ms = excluded.misfire_threshold_ms, tenant = excluded.tenant,"
            + "   next_fire_at = CASE WHEN (outbox_schedule.cron, outbox_schedule.zone, outbox_schedule.dst_gap_policy)"
            + "       IS DISTINCT FROM (excluded.cron, excluded.zone, excluded.dst_gap_policy)"
            + "     THEN excluded.next_fire_at ELSE outbox_schedule.next_fire_at END,"
            + "   updated_at = now()"
            + " WHERE (" + prefixed("outbox_schedule") + ") IS DISTINCT FROM (" + prefixed("excluded") + ")"
            + " RETURNING (xmax = 0) AS inserted";

    private static final String LOCK_DUE = "SELECT " + DEFINITION_COLUMNS + ", next_fire_at, last_job_id"
            + " FROM outbox_schedule WHERE NOT paused AND next_fire_at <= ?"
            + " ORDER BY next_fire_at LIMIT ? FOR UPDATE SKIP LOCKED";

    private static final String ADVANCE = "UPDATE outbox_schedule SET next_fire_at = ?,"
            + " last_fire_at = coalesce(?, last_fire_at), last_job_id = coalesce(?, last_job_id), updated_at = now()"
            + " WHERE name = ?";

    private static final String JOB_UNFINISHED = "SELECT EXISTS (SELECT 1 FROM outbox_job WHERE id = ?)";

    private static final String SET_PAUSED =
            "UPDATE outbox_schedule SET paused = ?, updated_at = now() WHERE name = ? AND paused <> ?";

    private static final String EXISTS = "SELECT EXISTS (SELECT 1 FROM outbox_schedule WHERE name = ?";

    /** Limits a statement on {@code outbox_schedule} to one tenant's rows (the default tenant: {@code ''}). */
    private static final String OF_TENANT = " AND coalesce(tenant, '') = ?";

    private static final String STORED = "SELECT name, cron, zone, kind, queue, paused, next_fire_at, last_fire_at,"
            + " last_job_id, dst_gap_policy, missed_fire_policy, overlap_policy, tenant FROM outbox_schedule"
            + " WHERE true";

    /** The latest fires of each schedule: a window over the view's rows of every schedule, or of the one named. */
    /** The fire history's rows: the view {@code outbox_schedule_fire}, or its rows of one tenant's jobs. */
    private static final String RECENT_FIRES = "SELECT schedule_name, fire_at, job_id, state, attempts, last_error,"
            + " created_at, finished_at FROM (SELECT f.*, row_number() OVER (PARTITION BY schedule_name"
            + " ORDER BY fire_at DESC, job_id DESC) AS rn FROM %s f) h WHERE rn <= ?";

    /**
     * The rows of {@code outbox_schedule_fire} whose job is one tenant's (three parameters: the tenant
     * key). The view has no tenant: a schedule that moved from one tenant to another would show the
     * fires of the first to the second.
     */
    private static final String FIRES_OF_TENANT = "(SELECT split_part(fire_key, '@', 1) AS schedule_name,"
            + " split_part(fire_key, '@', 2)::timestamptz AS fire_at, id AS job_id, state, attempts, last_error,"
            + " created_at, NULL::timestamptz AS finished_at FROM outbox_job WHERE fire_key IS NOT NULL" + OF_TENANT
            + " UNION ALL SELECT split_part(fire_key, '@', 1), split_part(fire_key, '@', 2)::timestamptz, id, state,"
            + " attempts, last_error, created_at, finished_at FROM outbox_job_archive WHERE fire_key IS NOT NULL"
            + OF_TENANT
            + " UNION ALL SELECT split_part(fire_key, '@', 1), split_part(fire_key, '@', 2)::timestamptz, id, 'dead',"
            + " attempts, last_error, created_at, dead_at FROM outbox_dead_letter WHERE fire_key IS NOT NULL"
            + OF_TENANT + ")";

    private static String prefixed(String table) {
        StringBuilder sb = new StringBuilder();
        for (String column : DEFINITION_COLUMNS.split(",\\s*")) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(table).append('.').append(column);
        }
        return sb.toString();
    }

    /** A locked, due schedule row. */
    public record DueSchedule(
            String name,
            String cron,
            String zone,
            String kind,
            String queue,
            String payload,
            DstGapPolicy dstGapPolicy,
            MissedFirePolicy missedFirePolicy,
            OverlapPolicy overlapPolicy,
            Duration misfireThreshold,
            Instant nextFireAt,
            @Nullable Long lastJobId,
            @Nullable String tenant) {

        /** The definition stored in the row; throws when the row holds an invalid definition. */
        public ScheduleDefinition definition() {
            return ScheduleDefinition.builder(name)
                    .cron(cron)
                    .zone(zone)
                    .kind(kind)
                    .queue(queue)
                    .payloadTemplate(payload)
                    .dstGapPolicy(dstGapPolicy)
                    .missedFirePolicy(missedFirePolicy)
                    .overlapPolicy(overlapPolicy)
                    .misfireThreshold(misfireThreshold)
                    .tenant(tenant)
                    .build();
        }
    }

    /** The database clock shifted by {@code offset} (zero in production; tests inject skew). */
    public Instant databaseNow(Connection c, Duration offset) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DATABASE_NOW)) {
            ps.setLong(1, offset.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }

    /** What {@link #upsert} did. */
    public enum Upsert {
        INSERTED,
        UPDATED,
        UNCHANGED
    }

    /**
     * Inserts or updates a definition in one statement (safe when every node of a cluster calls it
     * at once: racing callers serialise on the row, and each writes its whole definition in turn).
     */
    public Upsert upsert(Connection c, ScheduleDefinition d, @Nullable Instant nextFireAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
            ps.setString(1, d.name());
            ps.setString(2, d.cronExpression());
            ps.setString(3, d.zone().getId());
            ps.setString(4, d.kind());
            ps.setString(5, d.queue());
            ps.setString(6, d.payloadTemplate());
            ps.setString(7, d.dstGapPolicy().name());
            ps.setString(8, d.missedFirePolicy().name());
            ps.setString(9, d.overlapPolicy().name());
            ps.setLong(10, d.misfireThreshold().toMillis());
            ps.setString(11, d.tenant().orElse(null));
            setInstant(ps, 12, nextFireAt);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Upsert.UNCHANGED;
                }
                return rs.getBoolean(1) ? Upsert.INSERTED : Upsert.UPDATED;
            }
        }
    }

    /** Locks up to {@code limit} unpaused schedules due at {@code now}, skipping rows others hold. */
    public List<DueSchedule> lockDue(Connection c, Instant now, int limit) throws SQLException {
        List<DueSchedule> due = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(LOCK_DUE)) {
            setInstant(ps, 1, now);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    due.add(new DueSchedule(
                            rs.getString("name"),
                            rs.getString("cron"),
                            rs.getString("zone"),
                            rs.getString("kind"),
                            rs.getString("queue"),
                            rs.getString("payload"),
                            DstGapPolicy.valueOf(rs.getString("dst_gap_policy")),
                            MissedFirePolicy.valueOf(rs.getString("missed_fire_policy")),
                            OverlapPolicy.valueOf(rs.getString("overlap_policy")),
                            Duration.ofMillis(rs.getLong("misfire_threshold_ms")),
                            rs.getObject("next_fire_at", OffsetDateTime.class).toInstant(),
                            (Long) rs.getObject("last_job_id"),
                            rs.getString("tenant")));
                }
            }
        }
        return due;
    }

    /** Stores the schedule's next fire and, when fires were materialised, the latest of them. */
    public void advance(
            Connection c,
            String name,
            @Nullable Instant nextFireAt,
            @Nullable Instant lastFireAt,
            @Nullable Long lastJobId)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ADVANCE)) {
            setInstant(ps, 1, nextFireAt);
            setInstant(ps, 2, lastFireAt);
            if (lastJobId == null) {
                ps.setNull(3, Types.BIGINT);
            } else {
                ps.setLong(3, lastJobId);
            }
            ps.setString(4, name);
            ps.executeUpdate();
        }
    }

    /** Whether the job is still in the live table (pending, waiting to retry or running). */
    public boolean jobUnfinished(Connection c, long jobId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JOB_UNFINISHED)) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Pauses or resumes; returns false when the schedule does not exist (as one of the tenant's, when
     * {@code tenantKey} is given) or already had that state.
     *
     * @param tenantKey the tenant's key ({@code ''} for the default tenant), or null for any tenant
     */
    public boolean setPaused(Connection c, String name, @Nullable String tenantKey, boolean paused)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SET_PAUSED + (tenantKey != null ? OF_TENANT : ""))) {
            ps.setBoolean(1, paused);
            ps.setString(2, name);
            ps.setBoolean(3, paused);
            if (tenantKey != null) {
                ps.setString(4, tenantKey);
            }
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Whether a schedule of that name is stored (as one of the tenant's, when {@code tenantKey} is
     * given: {@code ''} for the default tenant).
     */
    public boolean exists(Connection c, String name, @Nullable String tenantKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(EXISTS + (tenantKey != null ? OF_TENANT : "") + ")")) {
            ps.setString(1, name);
            if (tenantKey != null) {
                ps.setString(2, tenantKey);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * The stored schedules in name order, every one or the one named, each with its latest {@code
     * historyLimit} fires, newest first (none when {@code historyLimit} is not positive).
     *
     * @param tenantKey only that tenant's schedules ({@code ''} for the default tenant); null for every
     *     tenant's
     */
    public List<StoredSchedule> stored(
            Connection c, @Nullable String name, @Nullable String tenantKey, int historyLimit) throws SQLException {
        Map<String, List<ScheduleFire>> fires =
                historyLimit > 0 ? recentFires(c, name, tenantKey, historyLimit) : Map.of();
        List<StoredSchedule> schedules = new ArrayList<>();
        String sql = STORED + (name != null ? " AND name = ?" : "") + (tenantKey != null ? OF_TENANT : "")
                + " ORDER BY name";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (name != null) {
                ps.setString(i++, name);
            }
            if (tenantKey != null) {
                ps.setString(i, tenantKey);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String scheduleName = rs.getString(1);
                    schedules.add(new StoredSchedule(
                            scheduleName,
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5),
                            rs.getBoolean(6),
                            nullableInstant(rs, 7),
                            nullableInstant(rs, 8),
                            rs.getObject(9, Long.class),
                            DstGapPolicy.valueOf(rs.getString(10)),
                            MissedFirePolicy.valueOf(rs.getString(11)),
                            OverlapPolicy.valueOf(rs.getString(12)),
                            fires.getOrDefault(scheduleName, List.of()),
                            rs.getString(13)));
                }
            }
        }
        return schedules;
    }

    private Map<String, List<ScheduleFire>> recentFires(
            Connection c, @Nullable String name, @Nullable String tenantKey, int limit) throws SQLException {
        Map<String, List<ScheduleFire>> fires = new HashMap<>();
        String sql = String.format(RECENT_FIRES, tenantKey != null ? FIRES_OF_TENANT : "outbox_schedule_fire")
                + (name != null ? " AND schedule_name = ?" : "")
                + (tenantKey != null
                        ? " AND schedule_name IN (SELECT name FROM outbox_schedule WHERE true" + OF_TENANT + ")"
                        : "")
                + " ORDER BY schedule_name, fire_at DESC, job_id DESC";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (tenantKey != null) {
                for (int t = 0; t < 3; t++) {
                    ps.setString(i++, tenantKey);
                }
            }
            ps.setInt(i++, limit);
            if (name != null) {
                ps.setString(i++, name);
            }
            if (tenantKey != null) {
                ps.setString(i, tenantKey);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    fires.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new ScheduleFire(
                                    instant(rs, 2),
                                    rs.getLong(3),
                                    rs.getString(4),
                                    rs.getInt(5),
                                    rs.getString(6),
                                    instant(rs, 7),
                                    nullableInstant(rs, 8)));
                }
            }
        }
        return fires;
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    private static @Nullable Instant nullableInstant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private static void setInstant(PreparedStatement ps, int index, @Nullable Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }
}
