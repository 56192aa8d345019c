package dev.postbox.internal;

import dev.postbox.Job;
import dev.postbox.JsonCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the claim on {@code outbox_job}: which due jobs a worker takes (lanes in preference
 * order, tenants sharing fairly, ordering keys respected, paused queues and caps honoured), locked
 * with {@code FOR UPDATE SKIP LOCKED} and leased under a new fencing token. The claim counts the
 * attempt; {@link LeaseStore} records its start or refunds it, {@link JobStore} ends it.
 */
public final class ClaimStore {

    /**
     * Per-key order (schema V12): a job with an ordering key is claimable only when no live job of
     * its key and tenant precedes it in commit order ({@code (key_seq, id)}) and none of them is
     * running. Each is one index range probe. The first part gives commit order; the second makes
     * "one at a time" hold for rows that carry an order from before V12 (their ids) and for anything
     * else that would put a running job behind a waiting one. ({@code r.id <> j.id} keeps the second
     * probe correlated: without it the planner may hash every running job of the table, all keys and
     * queues, once per claim.) Dropped only by the {@link
     * NegativeControls#IGNORE_ORDERING_KEY} negative control.
     */
    private static final String ORDERED = NegativeControls.IGNORE_ORDERING_KEY
            ? ""
            : "   AND (j.ordering_key IS NULL OR (NOT EXISTS ("
                    + "        SELECT 1 FROM outbox_job h WHERE h.ordering_key = j.ordering_key"
                    + "          AND coalesce(h.tenant, '') = coalesce(j.tenant, '')"
                    + "          AND (h.key_seq, h.id) < (j.key_seq, j.id))"
                    + "     AND NOT EXISTS ("
                    + "        SELECT 1 FROM outbox_job r WHERE r.ordering_key = j.ordering_key"
                    + "          AND coalesce(r.tenant, '') = coalesce(j.tenant, '') AND r.state = 'running'"
                    + "          AND r.id <> j.id)))";

    /**
     * How far in claim order a lane is read: jobs due within 100 s (the highest priority's head start),
     * which leaves out the jobs waiting for their ordering key ({@link KeyWaitingStore}); the {@link
     * NegativeControls#IGNORE_ORDERING_KEY} control reads those too, so that it runs them out of order.
     */
    private static final String DUE = NegativeControls.IGNORE_ORDERING_KEY
            ? "     AND (j.sort_at <= now() + interval '100 seconds' OR j.sort_at = " + KeyWaitingStore.WAITING + ")"
            : "     AND j.sort_at <= now() + interval '100 seconds'";

    /**
     * One lane's share, taken tenant by tenant: for each tenant of the claim (in the order given), at
     * most {@code least(room, perTenant)} of its claimable jobs of the lane in claim order. Each tenant's
     * read is an index scan of the fair-claim index ({@code queue, tenant, lane, sort_at, id}) bounded
     * by {@code sort_at <= now() + 100 s}, so a tenant's backlog is never read past what it is given,
     * and another tenant's head is one probe away whatever that backlog holds. Jobs waiting for their
     * key lie beyond that bound; {@link #ORDERED} still guards the order of the rest.
     */
    private static final String LANE = "SELECT x.id, t.t, t.room, t.n FROM tenants t CROSS JOIN LATERAL ("
            + "   SELECT j.id FROM outbox_job j"
            + "   WHERE j.queue = ? AND coalesce(j.tenant, '') = t.t AND j.lane = ? AND j.state IN ('pending', 'retry')"
            + DUE
            + "     AND j.run_at <= now()"
            + ORDERED
            + "     AND (SELECT open FROM gate)"
            + "   ORDER BY j.sort_at, j.id LIMIT least(t.room, ?::int) FOR UPDATE OF j SKIP LOCKED) x"
            + " LIMIT ?";

    /** The lanes' candidates in preference order (high, normal, low), at most the overall limit. */
    private static final String CANDIDATES = "candidates AS (SELECT id FROM high UNION ALL SELECT id FROM normal"
            + " UNION ALL SELECT id FROM low LIMIT ?)";

    /**
     * The same when some tenant's room is smaller than the claim (a tenant cap): a tenant's rows of
     * all lanes together are cut to its room, lanes in preference order. (A lane's rows left out stay
     * pending; their locks end with the statement.)
     */
    private static final String CAPPED_CANDIDATES = "candidates AS (SELECT id FROM ("
            + "   SELECT id, room, row_number() OVER (PARTITION BY t ORDER BY rank, id) AS nth FROM ("
            + "     SELECT id, t, room, 0 AS rank FROM high UNION ALL SELECT id, t, room, 1 FROM normal"
            + "     UNION ALL SELECT id, t, room, 2 FROM low) l) r"
            + "   WHERE nth <= room LIMIT ?)";

    private static String claimStatement(String candidates) {
        return "WITH gate AS (SELECT NOT EXISTS ("
                + "   SELECT 1 FROM outbox_queue q WHERE q.name = ? AND q.paused) AS open),"
                + " tenants AS (SELECT * FROM unnest(?::text[], ?::int[]) WITH ORDINALITY AS t(t, room, n)),"
                + " high AS (" + LANE + "),"
                + " normal AS (" + LANE + "),"
                + " low AS (" + LANE + "),"
                + " " + candidates
                + " UPDATE outbox_job j SET state = 'running', attempts = j.attempts + 1, lease_owner = ?,"
                + "   lease_token = nextval('outbox_lease_token_seq'),"
                + "   lease_until = now() + ?::bigint * interval '1 millisecond', started_at = now(),"
                + "   lease_started = false"
                + "  FROM candidates c WHERE j.id = c.id"
                + " RETURNING j.id, j.queue, j.kind, j.payload::text, j.idempotency_key, j.ordering_key, j.endpoint,"
                + "   j.attempts, j.max_attempts, j.headers::text, j.created_at, j.lease_token,"
                + "   coalesce(j.expires_at < now(), false), j.lane, j.unstarted_expiries > 0, j.tenant,"
                + "   coalesce(j.time_limit_ms, 0)";
    }

    /**
     * One claim over the three priority lanes and the given tenants. Lanes are read in order high,
     * normal, low and only as far as the overall limit needs (CTE scans are demand-driven); within a
     * lane, tenants in the order given, each at most its share.
     *
     * <p>The claim counts the attempt it takes ({@code attempts + 1}) and clears {@code
     * lease_started}; the rescuer refunds the attempt if the lease expires before a start mark
     * (see {@link LeaseStore#rescue}). It returns whether the job is suspect ({@code unstarted_expiries > 0}).
     */
    private static final String CLAIM = claimStatement(CANDIDATES);

    private static final String CAPPED_CLAIM = claimStatement(CAPPED_CANDIDATES);

    /** The claims as the dispatcher runs them: with a generic plan ({@link GenericPlans}). */
    private static final String GENERIC_CLAIM = GenericPlans.of(CLAIM);

    private static final String GENERIC_CAPPED_CLAIM = GenericPlans.of(CAPPED_CLAIM);

    /** Serialises claims of a capped queue across the installation's nodes (transaction-scoped). */
    private static final String CAP_LOCK = "SELECT pg_advisory_xact_lock(" + AdvisoryLocks.QUEUE_CAP + ")";

    /** Free slots of a capped queue; a separate statement, so that its snapshot follows the lock. */
    private static final String CAP_FREE_SLOTS = "SELECT greatest(0, q.max_concurrency - (SELECT count(*)"
            + " FROM outbox_job r WHERE r.queue = q.name AND r.state = 'running')) FROM outbox_queue q"
            + " WHERE q.name = ? AND q.max_concurrency IS NOT NULL";

    private static final String CAPPED_QUEUES =
            "SELECT name, max_concurrency FROM outbox_queue WHERE max_concurrency IS NOT NULL";

    private final JsonCodec codec;
    private volatile @Nullable Installation installation;

    public ClaimStore(JsonCodec codec) {
        this.codec = codec;
    }

    /** What one claim statement took, with the count per lane (high, normal, low). */
    public record Claim(List<ClaimedJob> jobs, int[] perLane) {}

    /**
     * A tenant taking part in a claim: its key ({@code ""} for the default tenant, see {@link
     * dev.postbox.TenantId#key}) and the most jobs it may take in this claim (its room under a cap).
     */
    public record TenantRoom(String key, int room) {

        /** A tenant without a cap in this claim. */
        public static TenantRoom uncapped(String key) {
            return new TenantRoom(key, Integer.MAX_VALUE);
        }
    }

    /**
     * Claims up to {@code laneLimits[i]} jobs of each lane (high, normal, low) and at most {@code
     * limit} in all, preferring lanes in that order; within a lane, each tenant of {@code tenants}
     * (in that order) takes at most {@code ceil(laneLimit / tenants)} jobs when {@code spread}, at most
     * the lane's limit when not, and never more than its room.
     */
    public Claim claim(
            Connection c,
            String queue,
            List<TenantRoom> tenants,
            int[] laneLimits,
            boolean spread,
            int limit,
            String workerId,
            Duration lease)
            throws SQLException {
        if (installation == null) {
            installation = Installation.read(c);
        }
        if (tenants.isEmpty()) {
            return new Claim(List.of(), new int[3]);
        }
        boolean capped = tenants.stream().anyMatch(t -> t.room() < limit);
        try (PreparedStatement ps = c.prepareStatement(capped ? GENERIC_CAPPED_CLAIM : GENERIC_CLAIM)) {
            bindClaim(c, ps, queue, tenants, laneLimits, spread, limit, workerId, lease);
            List<ClaimedJob> jobs = new ArrayList<>(limit);
            int[] perLane = new int[3];
            // The database starts the lease after this instant: a safe local estimate of its end.
            long leaseEnd = System.nanoTime() + lease.toNanos();
            try (ResultSet rs = GenericPlans.executeQuery(ps)) {
                while (rs.next()) {
                    jobs.add(readClaimed(rs, leaseEnd));
                    perLane[1 - rs.getInt(14)]++;
                }
            }
            return new Claim(jobs, perLane);
        }
    }

    private static void bindClaim(
            Connection c,
            PreparedStatement ps,
            String queue,
            List<TenantRoom> tenants,
            int[] laneLimits,
            boolean spread,
            int limit,
            String workerId,
            Duration lease)
            throws SQLException {
        String[] keys = new String[tenants.size()];
        Integer[] rooms = new Integer[tenants.size()];
        for (int t = 0; t < keys.length; t++) {
            keys[t] = tenants.get(t).key();
            rooms[t] = Math.max(0, Math.min(limit, tenants.get(t).room()));
        }
        int i = 1;
        ps.setString(i++, queue);
        ps.setArray(i++, c.createArrayOf("text", keys));
        ps.setArray(i++, c.createArrayOf("int4", rooms));
        for (int lane = 0; lane < 3; lane++) {
            int laneLimit = laneLimits[lane];
            ps.setString(i++, queue);
            ps.setInt(i++, LaneShares.LANES[lane]);
            ps.setInt(i++, spread ? Math.max(1, (laneLimit + keys.length - 1) / keys.length) : laneLimit);
            ps.setInt(i++, laneLimit);
        }
        ps.setInt(i++, limit);
        ps.setString(i++, workerId);
        ps.setLong(i, lease.toMillis());
    }

    /**
     * Claims up to {@code laneLimits[i]} jobs of each lane (high, normal, low) and at most {@code
     * limit} in all, preferring lanes in that order, shared fairly between the first {@link
     * TenantStore#DEFAULT_TENANTS_PER_CLAIM} tenants with work.
     */
    public Claim claim(Connection c, String queue, int[] laneLimits, int limit, String workerId, Duration lease)
            throws SQLException {
        List<TenantRoom> tenants = new ArrayList<>();
        for (String key : TenantStore.tenantsWithWork(c, queue, "", TenantStore.DEFAULT_TENANTS_PER_CLAIM)) {
            tenants.add(TenantRoom.uncapped(key));
        }
        return claim(c, queue, tenants, laneLimits, true, limit, workerId, lease);
    }

    /**
     * The plan of the claim statement for the given queue and limit (default tenant only), as {@code
     * EXPLAIN (<options>)} prints it (e.g. options {@code "FORMAT JSON"} or {@code "ANALYZE, BUFFERS"};
     * ANALYZE is run inside a rolled-back transaction so nothing is claimed). For plan tests and
     * benchmarks.
     */
    public String explainClaim(Connection c, String queue, int limit, String options) throws SQLException {
        if (!options.matches("[A-Za-z, ]*")) {
            throw new IllegalArgumentException("EXPLAIN options may hold only words and commas: " + options);
        }
        return Transactions.rolledBack(c, tx -> explainClaimInTransaction(tx, queue, limit, options));
    }

    private static String explainClaimInTransaction(Connection c, String queue, int limit, String options)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN (" + options + ") " + CLAIM)) {
            bindClaim(
                    c,
                    ps,
                    queue,
                    List.of(TenantRoom.uncapped("")),
                    new int[] {limit, limit, limit},
                    false,
                    limit,
                    "explain",
                    Duration.ofSeconds(30));
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    /** Claims up to {@code limit} jobs, lanes in strict order high, normal, low, tenants sharing fairly. */
    public List<ClaimedJob> claim(Connection c, String queue, int limit, String workerId, Duration lease)
            throws SQLException {
        return claim(c, queue, new int[] {limit, limit, limit}, limit, workerId, lease)
                .jobs();
    }

    /**
     * In the caller's transaction: waits for the queue's cluster-wide claim lock and returns how
     * many more jobs the queue may run, or {@code null} when it has no cap.
     */
    public @Nullable Integer lockCappedQueue(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(CAP_LOCK)) {
            ps.setString(1, queue);
            ps.execute();
        }
        try (PreparedStatement ps = c.prepareStatement(CAP_FREE_SLOTS)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : null;
            }
        }
    }

    /** Queues with a cluster-wide concurrency cap, with the cap. */
    public Map<String, Integer> cappedQueues(Connection c) throws SQLException {
        Map<String, Integer> caps = new java.util.HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(CAPPED_QUEUES);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                caps.put(rs.getString(1), rs.getInt(2));
            }
        }
        return caps;
    }

    private ClaimedJob readClaimed(ResultSet rs, long leaseEndNanos) throws SQLException {
        Map<String, String> headers = ClaimedHeaders.read(rs.getLong(1), rs.getString(10), codec);
        // OffsetDateTime parses the text directly; getTimestamp goes through a Calendar per row.
        java.time.Instant createdAt =
                rs.getObject(11, java.time.OffsetDateTime.class).toInstant();
        Installation installation = this.installation;
        Job job = Job.builder(rs.getLong(1), rs.getString(3), rs.getString(4), codec)
                .queue(rs.getString(2))
                .idempotencyKey(rs.getString(5))
                .orderingKey(rs.getString(6))
                .endpoint(rs.getString(7))
                .attempt(rs.getInt(8), rs.getInt(9))
                .headers(headers)
                .createdAt(createdAt)
                .installationId(installation == null ? null : installation.idFor(createdAt))
                .tenant(rs.getString(16))
                .build();
        return new ClaimedJob(job, rs.getLong(12), rs.getBoolean(13), rs.getBoolean(15), leaseEndNanos, rs.getInt(17));
    }
}
