package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The dead-letter page's groups: dead letters of one kind that failed the same way, counted.
 *
 * <p>A group is kind, endpoint, HTTP status and error fingerprint (schema V13): {@code
 * error_fingerprint} masks every number, so the status is its own column and 500 stays apart from 503.
 *
 * <p>Planner note ({@code GROUPS}, proven with EXPLAIN in ConsoleStatementPlanTest): all groups are
 * one pass over the dead letters (hash aggregate); the groups of one kind, and the replay or purge of
 * one group, use {@code outbox_dead_letter_group_idx}.
 */
public final class DeadLetterGroupStore {

    static final String GROUPS = "SELECT kind, endpoint, error_status, error_fingerprint, count(*), min(dead_at),"
            + " max(dead_at) FROM outbox_dead_letter WHERE dead_at >= coalesce(?::timestamptz, '-infinity')"
            + " AND dead_at < coalesce(?::timestamptz, 'infinity') AND (?::text IS NULL OR kind = ?)"
            + " AND (?::text IS NULL OR coalesce(tenant, '" + JobSearch.DEFAULT_TENANT + "') = ?)"
            + " GROUP BY kind, endpoint, error_status, error_fingerprint"
            + " ORDER BY count(*) DESC, kind, endpoint, error_status, error_fingerprint LIMIT ?";

    private final ConsoleDatabase database;

    public DeadLetterGroupStore(ConsoleDatabase database) {
        this.database = database;
    }

    /**
     * Dead letters of one kind (and endpoint) that failed the same way: the same error fingerprint
     * (every number, UUID and quoted literal masked) and HTTP status (null for none).
     */
    public record DeadGroup(
            String kind,
            @Nullable String endpoint,
            @Nullable Integer status,
            String fingerprint,
            long count,
            Instant firstDeadAt,
            Instant lastDeadAt) {}

    public List<DeadGroup> deadLetterGroups(
            @Nullable Instant from, @Nullable Instant to, @Nullable String kind, @Nullable String tenant, int limit) {
        return database.list(
                GROUPS,
                ps -> {
                    ps.setTimestamp(1, from == null ? null : Timestamp.from(from));
                    ps.setTimestamp(2, to == null ? null : Timestamp.from(to));
                    ps.setString(3, kind);
                    ps.setString(4, kind);
                    ps.setString(5, tenant);
                    ps.setString(6, tenant);
                    ps.setInt(7, limit);
                },
                rs -> new DeadGroup(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getObject(3, Integer.class),
                        rs.getString(4),
                        rs.getLong(5),
                        instant(rs, 6),
                        instant(rs, 7)));
    }
}
