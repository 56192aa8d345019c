package dev.postbox.console.internal;

import static dev.postbox.console.internal.ConsoleDatabase.instant;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The dead-letter page's groups: dead letters of one kind that failed the same way, counted.
 *
 * <p>Planner note ({@code GROUPS}, proven with EXPLAIN in ConsoleStatementPlanTest): all groups are
 * one pass over the dead letters (hash aggregate); the groups of one kind, and the replay or purge of
 * one group, use {@code outbox_dead_letter_group_idx}.
 */
public final class DeadLetterGroupStore {

    static final String GROUPS = "SELECT kind, error_fingerprint, count(*), min(dead_at), max(dead_at)"
            + " FROM outbox_dead_letter WHERE dead_at >= coalesce(?::timestamptz, '-infinity')"
            + " AND dead_at < coalesce(?::timestamptz, 'infinity') AND (?::text IS NULL OR kind = ?)"
            + " GROUP BY kind, error_fingerprint ORDER BY count(*) DESC, kind, error_fingerprint LIMIT ?";

    private final ConsoleDatabase database;

    public DeadLetterGroupStore(ConsoleDatabase database) {
        this.database = database;
    }

    /** Dead letters of one kind that failed the same way. */
    public record DeadGroup(String kind, String fingerprint, long count, Instant firstDeadAt, Instant lastDeadAt) {}

    public List<DeadGroup> deadLetterGroups(
            @Nullable Instant from, @Nullable Instant to, @Nullable String kind, int limit) {
        return database.list(
                GROUPS,
                ps -> {
                    ps.setTimestamp(1, from == null ? null : Timestamp.from(from));
                    ps.setTimestamp(2, to == null ? null : Timestamp.from(to));
                    ps.setString(3, kind);
                    ps.setString(4, kind);
                    ps.setInt(5, limit);
                },
                rs -> new DeadGroup(rs.getString(1), rs.getString(2), rs.getLong(3), instant(rs, 4), instant(rs, 5)));
    }
}
