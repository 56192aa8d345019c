package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.PostboxConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario backlog-depth: drain rate and claim latency with 1,000, 100,000 and 1,000,000 pending
 * jobs (live rows, not history). For each depth, a fresh database with that many pending no-op
 * jobs; first the engine's claim statement timed from a client ({@link ClaimTiming}, claim batch of
 * the engine's configuration, rolled back), then one engine drains them all ({@link BurnDown#drain}).
 * The ratio compares the deepest level's drain rate with the next one's (target: 1M ≥ 0.8× 100k).
 */
final class BacklogDepth {

    private static final Logger log = LoggerFactory.getLogger(BacklogDepth.class);
    static final String NAME = "backlog-depth";
    static final double DEEPEST_TO_NEXT_TARGET = 0.8;

    private BacklogDepth() {}

    record Settings(List<Integer> depths, int claims) {

        static Settings fromSystemProperties() {
            return new Settings(
                    Bench.Sizes.ints(System.getProperty("bench.backlogDepths", "1000,100000,1000000")),
                    Integer.getInteger("bench.backlogClaims", 200));
        }
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        PostboxConfig config = Fixtures.engineConfig();
        long t0 = System.nanoTime();
        List<Map<String, Object>> levels = new ArrayList<>();
        long jobs = 0;
        for (int depth : settings.depths()) {
            levels.add(level(config, depth, settings.claims()));
            jobs += depth;
        }
        Map<String, Object> r = env.result(NAME, jobs, (System.nanoTime() - t0) / 1e9);
        r.put("jobsPerSecond", null); // per level below
        Map<String, Object> deepest = levels.get(levels.size() - 1);
        r.put("p50Ms", deepest.get("claimP50Ms"));
        r.put("p99Ms", deepest.get("claimP99Ms"));
        Double ratio = null;
        if (levels.size() >= 2
                && deepest.get("drainJobsPerSecond") instanceof Double deep
                && levels.get(levels.size() - 2).get("drainJobsPerSecond") instanceof Double next) {
            ratio = Env.round(deep / next, 3);
        }
        r.put("deepest", deepest.get("pending"));
        r.put("nextDeepest", levels.size() >= 2 ? levels.get(levels.size() - 2).get("pending") : null);
        r.put("drainRatioDeepestToNext", ratio);
        r.put("drainRatioTarget", DEEPEST_TO_NEXT_TARGET);
        r.put("levels", levels);
        r.put("config", Fixtures.describe(config));
        StringBuilder notes = new StringBuilder("drain jobs/s, claim p50 ms by pending:");
        for (Map<String, Object> level : levels) {
            notes.append(' ')
                    .append(level.get("pending"))
                    .append(": ")
                    .append(level.get("drainJobsPerSecond"))
                    .append(", ")
                    .append(level.get("claimP50Ms"))
                    .append(';');
        }
        notes.append(" deepest/next = ").append(ratio);
        r.put("notes", notes.toString());
        log.info("backlog-depth: {}", notes);
        return r;
    }

    private static Map<String, Object> level(PostboxConfig config, int depth, int claims) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            long fill0 = System.nanoTime();
            Fixtures.insertPending(ds, depth, "noop");
            double fillSeconds = (System.nanoTime() - fill0) / 1e9;
            int batch = Math.min(config.claimBatchSize(), depth);
            Histogram claim = ClaimTiming.measure(ds, claims, Math.max(1, claims / 10), batch);
            BurnDown.Drain drain = BurnDown.drain(ds, config, depth);
            Map<String, Object> level = new LinkedHashMap<>();
            level.put("pending", depth);
            level.put("fillSeconds", Env.round(fillSeconds, 1));
            level.put("claimBatch", batch);
            level.put("claimP50Ms", StartLatency.ms(claim, 50));
            level.put("claimP99Ms", StartLatency.ms(claim, 99));
            level.put("drainCompleted", drain.completed());
            level.put("drainSeconds", Env.round(drain.seconds(), 3));
            level.put("drainJobsPerSecond", drain.completed() ? Env.round(depth / drain.seconds(), 1) : null);
            level.put("drainFailure", drain.failure());
            level.put("maxRunningRows", drain.maxRunningRows());
            level.put("loadAverage", Env.loadAverage());
            log.info(
                    "backlog {}: claim p50 {} ms, drain {} jobs/s",
                    depth,
                    level.get("claimP50Ms"),
                    level.get("drainJobsPerSecond"));
            return level;
        } finally {
            Db.drop(ds);
        }
    }
}
