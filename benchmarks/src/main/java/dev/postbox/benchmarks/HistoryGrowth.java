package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.JobStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 7: claim latency and plan with growing history. One database; the archive is filled to
 * each size in turn (finished jobs spread over seven days of {@code finished_at}) beside a live
 * table of pending jobs. Each claim (the engine's statement through {@link JobStore}, batch 100)
 * runs in a transaction that is rolled back, so every sample sees the same live table.
 */
final class HistoryGrowth {

    private static final Logger log = LoggerFactory.getLogger(HistoryGrowth.class);
    private static final int LIVE_PENDING = 10_000;
    private static final int CLAIM_BATCH = 100;

    private HistoryGrowth() {}

    static Map<String, Object> run(Env env, List<Integer> sizes) throws Exception {
        int samples = Integer.getInteger("bench.historyClaims", 1000);
        HikariDataSource ds = Db.create();
        long t0 = System.nanoTime();
        try {
            Fixtures.insertPending(ds, LIVE_PENDING, "noop");
            List<String> claimIndexes = claimIndexes(ds);
            List<Map<String, Object>> levels = new ArrayList<>();
            long inArchive = 0;
            boolean allIndex = true;
            for (int size : sizes) {
                long fill0 = System.nanoTime();
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(true);
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_job_archive (id, queue, kind,"
                            + " payload, priority, state, attempts, max_attempts, created_at, started_at, finished_at)"
                            + " SELECT 1000000000000 + g, 'default', 'noop', jsonb_build_object('n', g), 0, 'done', 1,"
                            + " 8, ts - interval '2 seconds', ts - interval '1 second', ts"
                            + " FROM (SELECT g, now() - (g % 604800) * interval '1 second' AS ts"
                            + "       FROM generate_series(?::bigint, ?::bigint) g) s")) {
                        ps.setLong(1, inArchive + 1);
                        ps.setLong(2, size);
                        ps.executeUpdate();
                    }
                    Fixtures.execute(c, "VACUUM ANALYZE");
                }
                inArchive = size;
                double fillSeconds = (System.nanoTime() - fill0) / 1e9;
                Histogram micros = ClaimTiming.measure(ds, samples, 100, CLAIM_BATCH);
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    String plan = explain(c);
                    c.rollback();
                    boolean index =
                            claimIndexes.stream().anyMatch(plan::contains) && !plan.contains("Seq Scan on outbox_job");
                    allIndex &= index;
                    Map<String, Object> level = new LinkedHashMap<>();
                    level.put("history", size);
                    level.put("archiveRows", Fixtures.count(ds, "SELECT count(*) FROM outbox_job_archive"));
                    level.put(
                            "archiveBytes",
                            Fixtures.count(
                                    ds,
                                    "SELECT pg_total_relation_size('outbox_job_archive')"
                                            + " + coalesce((SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits"
                                            + "   WHERE inhparent = 'outbox_job_archive'::regclass), 0)"));
                    level.put("fillSeconds", Env.round(fillSeconds, 1));
                    level.put("claimP50Ms", StartLatency.ms(micros, 50));
                    level.put("claimP99Ms", StartLatency.ms(micros, 99));
                    level.put("claimP999Ms", StartLatency.ms(micros, 99.9));
                    level.put("planUsesClaimIndex", index);
                    level.put("plan", plan.lines().toList());
                    levels.add(level);
                    log.info(
                            "history {}: claim p50 {} ms, p99 {} ms, claim index {}",
                            size,
                            level.get("claimP50Ms"),
                            level.get("claimP99Ms"),
                            index);
                }
            }
            Map<String, Object> first = levels.get(0);
            Map<String, Object> last = levels.get(levels.size() - 1);
            Map<String, Object> r =
                    env.result("history-growth", (long) samples * levels.size(), (System.nanoTime() - t0) / 1e9);
            r.put("jobsPerSecond", null);
            r.put("p50Ms", last.get("claimP50Ms"));
            r.put("p99Ms", last.get("claimP99Ms"));
            r.put("p999Ms", last.get("claimP999Ms"));
            r.put("smallestHistory", first.get("history"));
            r.put("largestHistory", last.get("history"));
            double ratio = (Double) last.get("claimP50Ms") / (Double) first.get("claimP50Ms");
            r.put("p50RatioLargestToSmallest", Env.round(ratio, 3));
            r.put("allPlansUseClaimIndex", allIndex);
            r.put("claimIndexes", claimIndexes);
            r.put("livePending", LIVE_PENDING);
            r.put("claimBatch", CLAIM_BATCH);
            r.put("levels", levels);
            StringBuilder notes = new StringBuilder(
                    "claim of " + CLAIM_BATCH + " (rolled back), " + LIVE_PENDING + " live pending; p50 by history:");
            for (Map<String, Object> level : levels) {
                notes.append(' ')
                        .append(level.get("history"))
                        .append('=')
                        .append(level.get("claimP50Ms"))
                        .append("ms");
            }
            notes.append("; latency columns are at the largest history");
            r.put("notes", notes.toString());
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    /** The partial indexes of the live table that order by {@code sort_at}: the claim path. */
    static List<String> claimIndexes(javax.sql.DataSource ds) throws Exception {
        List<String> names = new ArrayList<>();
        try (Connection c = ds.getConnection();
                java.sql.Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT indexname FROM pg_indexes WHERE tablename = 'outbox_job'"
                        + " AND indexdef LIKE '%sort_at%' AND indexdef LIKE '% WHERE %'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        if (names.isEmpty()) {
            throw new IllegalStateException("no partial claim index on outbox_job");
        }
        return names;
    }

    private static String explain(Connection c) throws Exception {
        return explain(c, CLAIM_BATCH);
    }

    /** {@code EXPLAIN (ANALYZE, BUFFERS)} of the engine's claim of {@code batch}; the caller rolls back. */
    static String explain(Connection c, int batch) throws Exception {
        StatementCapture.Captured claim = StatementCapture.claim(c, batch, "bench");
        try (PreparedStatement ps = claim.prepare(c, "EXPLAIN (ANALYZE, BUFFERS) ")) {
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }
}
