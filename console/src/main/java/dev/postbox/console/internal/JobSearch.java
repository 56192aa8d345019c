package dev.postbox.console.internal;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the jobs page searches for. An id or an idempotency key finds jobs wherever they are; the
 * other fields narrow the jobs of the time window {@code [from, to)}, which is the creation time of
 * live jobs and the finish time of archived and dead ones.
 *
 * @param state one of {@link #STATES}, or null for all
 * @param tenant only this tenant's jobs (id and key lookups included): a tenant id, or {@value
 *     #DEFAULT_TENANT} for the default tenant; null for every tenant
 */
public record JobSearch(
        @Nullable Long id,
        @Nullable String idempotencyKey,
        @Nullable String orderingKey,
        @Nullable String kind,
        @Nullable String queue,
        @Nullable String state,
        @Nullable String tenant,
        Instant from,
        Instant to) {

    /** How the console names the default tenant (as the actuator does): no tenant id has parentheses. */
    public static final String DEFAULT_TENANT = "(default)";

    /** The tenant condition, on every table (tenant ids never contain parentheses). */
    static final String TENANT = " AND coalesce(tenant, '" + DEFAULT_TENANT + "') = ?";

    /** The states a job can be in, live first. */
    public static final List<String> STATES =
            List.of("scheduled", "pending", "retry", "running", "done", "dead", "cancelled", "expired");

    public JobSearch {
        if (state != null && !STATES.contains(state)) {
            throw new IllegalArgumentException("state must be one of " + STATES + ", was '" + state + "'");
        }
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException(
                    "the time window's 'from' (" + from + ") must be before 'to' (" + to + ")");
        }
    }

    /** Whether the search can match jobs in one of these states. */
    boolean includes(String... states) {
        return state == null || Set.of(states).contains(state);
    }

    /** The WHERE clause of one table: the time column, the exact-match fields and the state. */
    JobSearchStore.Where where(String timeColumn, boolean live) {
        StringBuilder sql = new StringBuilder(" WHERE " + timeColumn + " >= ? AND " + timeColumn + " < ?");
        List<Object> params = new ArrayList<>(List.of(Timestamp.from(from), Timestamp.from(to)));
        if (orderingKey != null) {
            sql.append(" AND ordering_key = ?");
            params.add(orderingKey);
        }
        if (kind != null) {
            sql.append(" AND kind = ?");
            params.add(kind);
        }
        if (queue != null) {
            sql.append(" AND queue = ?");
            params.add(queue);
        }
        if (tenant != null) {
            sql.append(TENANT);
            params.add(tenant);
        }
        if (state != null && live) {
            switch (state) {
                case "scheduled" -> sql.append(" AND state = 'pending' AND run_at > now()");
                case "pending" -> sql.append(" AND state = 'pending' AND run_at <= now()");
                default -> {
                    sql.append(" AND state = ?");
                    params.add(state);
                }
            }
        } else if (state != null && !"dead".equals(state)) {
            sql.append(" AND state = ?");
            params.add(state);
        }
        return new JobSearchStore.Where(sql.toString(), params);
    }
}
