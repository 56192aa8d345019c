package dev.postbox.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Runs the dispatcher's hot statements (which tenants have work, the claim) with PostgreSQL's
 * generic plan. Left to itself (plan_cache_mode {@code auto}), PostgreSQL re-planned the claim at
 * every call while draining a backlog, because its custom plans (the same plan here) looked cheaper
 * to its estimates: 0.8-1.1 ms of planning per claim (docs/runs/benchmarks-2026-12.md, "Generic plans
 * for the claim"). Forced, the choice is the same under every load, and a connection plans each statement once.
 *
 * <p>The statement is sent after {@link #PREFIX}, which sets {@code plan_cache_mode} for the
 * current transaction only: in auto-commit mode the driver sends both in one round trip, in one
 * implicit transaction, so the setting never outlives the statement (nor leaks to the application's
 * use of the pooled connection); in the dispatcher's own transaction of a capped claim it lasts
 * until that transaction ends. The driver prepares the statement on the server after a few uses
 * ({@code prepareThreshold}); from then on the connection plans it once.
 */
public final class GenericPlans {

    /** Generic plans for the rest of the transaction (the statement that follows it). */
    public static final String PREFIX = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true);";

    private GenericPlans() {}

    /** The statement, to be run with a generic plan by {@link #executeQuery}. */
    static String of(String sql) {
        return PREFIX + sql;
    }

    /** The statement without {@link #PREFIX} (for tools that run or explain it on their own). */
    public static String withoutPrefix(String sql) {
        return sql.startsWith(PREFIX) ? sql.substring(PREFIX.length()) : sql;
    }

    /** Runs a statement made by {@link #of} and returns the result of the statement itself. */
    public static ResultSet executeQuery(PreparedStatement ps) throws SQLException {
        ps.execute(); // the setting's own one-row result comes first
        if (!ps.getMoreResults()) {
            throw new IllegalStateException("the statement after " + PREFIX + " returned no rows");
        }
        return ps.getResultSet();
    }
}
