package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of tenants on the claim path: which tenants have work in a queue (a skip scan over the
 * fair-claim index, one probe per tenant, never a scan of a tenant's jobs), the cluster-wide tenant
 * caps, and the free slots of capped tenants under their claim locks. Tenants are addressed by their
 * key: the tenant id, or {@code ""} for the default tenant.
 */
public final class TenantStore {

    /** How many tenants with work one claim visits at most, by default. */
    public static final int DEFAULT_TENANTS_PER_CLAIM = dev.postbox.PostboxConfig.DEFAULT_TENANTS_PER_CLAIM;

    /** The next tenant key with a live, unclaimed job in the queue after a given key (one index probe). */
    private static final String NEXT_AFTER = "SELECT coalesce(j.tenant, '') FROM outbox_job j"
            + " WHERE j.queue = ? AND j.state IN ('pending', 'retry') AND coalesce(j.tenant, '') > %s"
            + " ORDER BY coalesce(j.tenant, '') LIMIT 1";

    /**
     * Tenants with work in round-robin order from a cursor: first those after it, then, wrapping
     * around, those up to it, at most {@code max}; paused tenants are left out. Each recursion step
     * is one probe of the fair-claim index ({@code queue, coalesce(tenant, '')} leading), so the cost
     * grows with the number of tenants visited, never with their jobs.
     */
    private static final String TENANTS_WITH_WORK = "WITH RECURSIVE"
            + " after AS (SELECT (" + NEXT_AFTER.formatted("?") + ") AS t, 1 AS n"
            + "   UNION ALL SELECT (" + NEXT_AFTER.formatted("a.t") + "), a.n + 1 FROM after a"
            + "   WHERE a.t IS NOT NULL AND a.n < ?),"
            + " wrapped AS (SELECT (SELECT coalesce(j.tenant, '') FROM outbox_job j"
            + "     WHERE j.queue = ? AND j.state IN ('pending', 'retry')"
            + "     ORDER BY coalesce(j.tenant, '') LIMIT 1) AS t, 1 AS n"
            + "   UNION ALL SELECT (" + NEXT_AFTER.formatted("w.t") + "), w.n + 1 FROM wrapped w"
            + "   WHERE w.t IS NOT NULL AND w.t < ? AND w.n < ?)"
            + " SELECT x.t FROM (SELECT t, 0 AS part, n FROM after WHERE t IS NOT NULL"
            + "   UNION ALL SELECT t, 1, n FROM wrapped WHERE t IS NOT NULL AND t <= ?) x"
            + " WHERE NOT EXISTS (SELECT 1 FROM outbox_tenant p WHERE p.tenant = x.t AND p.paused)"
            + " ORDER BY x.part, x.n LIMIT ?";

    /** As the dispatcher runs it: with a generic plan ({@link GenericPlans}). */
    private static final String GENERIC_TENANTS_WITH_WORK = GenericPlans.of(TENANTS_WITH_WORK);

    private static final String CAPPED_TENANTS =
            "SELECT tenant, max_running FROM outbox_tenant WHERE max_running IS NOT NULL";

    /** Serialises claims of one capped tenant across the installation's nodes (transaction-scoped). */
    private static final String CAP_LOCK = "SELECT pg_advisory_xact_lock(" + AdvisoryLocks.tenantCap("t") + ")"
            + " FROM (SELECT t FROM unnest(?::text[]) AS t ORDER BY t) sorted";

    /**
     * Free slots of capped tenants: the cap minus their running jobs (read through the running-tenant
     * index, at most the cap's worth of rows each). A separate statement after the locks, so that
     * its snapshot sees the claims committed by the lock's previous holder.
     */
    private static final String CAP_FREE_SLOTS = "SELECT p.tenant, greatest(0, p.max_running - (SELECT count(*)"
            + " FROM outbox_job r WHERE coalesce(r.tenant, '') = p.tenant AND r.state = 'running'))"
            + " FROM outbox_tenant p WHERE p.tenant = ANY(?::text[]) AND p.max_running IS NOT NULL";

    private TenantStore() {}

    /**
     * Up to {@code max} tenant keys with live unclaimed jobs in the queue, in round-robin order
     * starting after {@code cursor} (and wrapping around), paused tenants left out.
     */
    public static List<String> tenantsWithWork(Connection c, String queue, String cursor, int max) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(GENERIC_TENANTS_WITH_WORK)) {
            int i = 1;
            ps.setString(i++, queue);
            ps.setString(i++, cursor);
            ps.setString(i++, queue);
            ps.setInt(i++, max);
            ps.setString(i++, queue);
            ps.setString(i++, queue);
            ps.setString(i++, cursor);
            ps.setInt(i++, max);
            ps.setString(i++, cursor);
            ps.setInt(i, max);
            List<String> tenants = new ArrayList<>();
            try (ResultSet rs = GenericPlans.executeQuery(ps)) {
                while (rs.next()) {
                    tenants.add(rs.getString(1));
                }
            }
            return tenants;
        }
    }

    /** Tenants with a cluster-wide cap on running jobs, with the cap (by tenant key). */
    public static Map<String, Integer> cappedTenants(Connection c) throws SQLException {
        Map<String, Integer> caps = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(CAPPED_TENANTS);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                caps.put(rs.getString(1), rs.getInt(2));
            }
        }
        return caps;
    }

    /**
     * In the caller's transaction: takes the claim locks of the capped tenants (in key order, so two
     * claimers never deadlock) and returns how many more jobs each may run cluster-wide.
     */
    public static Map<String, Integer> lockCappedTenants(Connection c, Collection<String> keys) throws SQLException {
        String[] array = keys.toArray(String[]::new);
        try (PreparedStatement ps = c.prepareStatement(CAP_LOCK)) {
            ps.setArray(1, c.createArrayOf("text", array));
            ps.executeQuery().close();
        }
        Map<String, Integer> free = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(CAP_FREE_SLOTS)) {
            ps.setArray(1, c.createArrayOf("text", array));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    free.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return free;
    }
}
