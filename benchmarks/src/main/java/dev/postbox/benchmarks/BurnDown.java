package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 1: pre-inserted no-op jobs drained by one engine. The clock runs from {@code start()} to
 * the completion (archive commit) of the last job.
 */
final class BurnDown {

    private static final Logger log = LoggerFactory.getLogger(BurnDown.class);

    private BurnDown() {}

    static Map<String, Object> run(Env env, int jobs) throws Exception {
        PostboxConfig config = Fixtures.engineConfig();
        HikariDataSource ds = Db.create();
        try {
            Fixtures.insertPending(ds, jobs, "noop");
            Map<String, Object> explain = explainClaim(ds, config.claimBatchSize());
            Drain drain = drain(ds, config, jobs);
            if (!drain.completed()) {
                Map<String, Object> r = env.result("burn-down", jobs, drain.seconds());
                r.put("jobsPerSecond", null);
                r.put("completed", false);
                r.put("completedJobs", drain.completedJobs());
                r.put("maxRunningRows", drain.maxRunningRows());
                r.put("samples", drain.samples());
                r.putAll(explain);
                r.put("config", Fixtures.describe(config));
                r.put("notes", "DID NOT COMPLETE: " + drain.failure());
                log.warn("burn-down did not complete: {}", drain.failure());
                return r;
            }
            long left = Fixtures.count(ds, "SELECT count(*) FROM outbox_job");
            long archived = Fixtures.count(ds, "SELECT count(*) FROM outbox_job_archive WHERE state = 'done'");
            if (left != 0 || archived != jobs) {
                throw new IllegalStateException("burn-down: " + left + " jobs left, " + archived + " archived");
            }
            Map<String, Object> r = env.result("burn-down", jobs, drain.seconds());
            r.put("drain", true);
            r.put("handlerRuns", drain.handlerRuns());
            r.put("completed", true);
            r.put("maxRunningRows", drain.maxRunningRows());
            r.put("samples", drain.samples());
            r.putAll(explain);
            r.put("config", Fixtures.describe(config));
            r.put(
                    "notes",
                    "one engine, no-op handler, " + config.concurrency() + " threads, claim batch "
                            + config.claimBatchSize() + ", completion batch " + config.completionBatchSize());
            log.info("burn-down: {} jobs in {} s = {} jobs/s", jobs, drain.seconds(), r.get("jobsPerSecond"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    /**
     * {@code EXPLAIN (ANALYZE, BUFFERS)} of the engine's claim statement (its own SQL and bindings, a
     * batch of the engine's claim size) on the full backlog before the drain, rolled back:
     * {@code claimExplain}, and {@code claimPlanUsesIndex} (a partial claim index, no sequential scan).
     */
    static Map<String, Object> explainClaim(javax.sql.DataSource ds, int batch) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        try (java.sql.Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                String plan = HistoryGrowth.explain(c, batch);
                List<String> indexes = HistoryGrowth.claimIndexes(ds);
                m.put("claimExplain", plan);
                m.put(
                        "claimPlanUsesIndex",
                        indexes.stream().anyMatch(plan::contains) && !plan.contains("Seq Scan on outbox_job"));
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        return m;
    }

    record Drain(
            double seconds,
            long handlerRuns,
            boolean completed,
            long completedJobs,
            long maxRunningRows,
            String failure,
            List<Map<String, Object>> samples) {}

    /** Most rows in state running before the drain counts as runaway (the engine holds far more than it can run). */
    static final long RUNAWAY_RUNNING_ROWS = Long.getLong("bench.runawayRunningRows", 50_000);

    /** Starts an engine on {@code ds}, waits until {@code jobs} completions are committed, stops it. */
    static Drain drain(javax.sql.DataSource ds, PostboxConfig config, long jobs) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong completed = new AtomicLong();
        AtomicLong runs = new AtomicLong();
        PostboxListener listener = new PostboxListener() {
            @Override
            public void completed(Job job, Duration duration) {
                if (completed.incrementAndGet() == jobs) {
                    done.countDown();
                }
            }
        };
        Postbox postbox = Postbox.builder(ds)
                .config(config)
                .listener(listener)
                .handler("noop", job -> runs.incrementAndGet())
                .build();
        List<Map<String, Object>> samples = new ArrayList<>();
        long maxRunning = 0;
        String failure = null;
        long t0 = System.nanoTime();
        long deadline = t0 + TimeUnit.MINUTES.toNanos(Long.getLong("bench.drainTimeoutMinutes", 10));
        postbox.start();
        try {
            while (!done.await(1, TimeUnit.SECONDS)) {
                long running = -1;
                try {
                    running = Fixtures.count(ds, "SELECT count(*) FROM outbox_job WHERE state = 'running'");
                } catch (SQLException e) {
                    // a sample is not worth failing the run
                }
                maxRunning = Math.max(maxRunning, running);
                Map<String, Object> sample = new LinkedHashMap<>();
                sample.put("t", Env.round((System.nanoTime() - t0) / 1e9, 1));
                sample.put("completed", completed.get());
                sample.put("handlerRuns", runs.get());
                sample.put("runningRows", running);
                samples.add(sample);
                if (running > RUNAWAY_RUNNING_ROWS) {
                    failure = "runaway claims: " + running + " rows in state running while " + completed.get()
                            + " of " + jobs + " completions were committed after "
                            + sample.get("t") + " s";
                    break;
                }
                if (System.nanoTime() > deadline) {
                    failure = "timeout: " + completed.get() + " of " + jobs + " completed";
                    break;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            return new Drain(seconds, runs.get(), failure == null, completed.get(), maxRunning, failure, samples);
        } finally {
            postbox.stop();
        }
    }
}
