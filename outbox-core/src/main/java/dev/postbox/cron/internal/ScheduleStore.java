package dev.postbox.cron.internal;

import dev.postbox.cron.DstGapPolicy;
import dev.postbox.cron.MissedFirePolicy;
import dev.postbox.cron.OverlapPolicy;
import dev.postbox.cron.ScheduleDefinition;
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
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The SQL of {@code outbox_schedule}: every statement on that table lives here. */
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

    private static final String EXISTS = "SELECT EXISTS (SELECT 1 FROM outbox_schedule WHERE name = ?)";

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

    /** Pauses or resumes; returns false when the schedule does not exist or already had that state. */
    public boolean setPaused(Connection c, String name, boolean paused) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SET_PAUSED)) {
            ps.setBoolean(1, paused);
            ps.setString(2, name);
            ps.setBoolean(3, paused);
            return ps.executeUpdate() == 1;
        }
    }

    /** Whether a schedule of that name is stored. */
    public boolean exists(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(EXISTS)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static void setInstant(PreparedStatement ps, int index, @Nullable Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }
}
