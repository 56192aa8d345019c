package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
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
        HikariDataSource ds = TestDatabase.create();
        try {
            Fixtures.insertPending(ds, jobs, "noop");
            Drain drain = drain(ds, config, jobs);
            long left = Fixtures.count(ds, "SELECT count(*) FROM outbox_job");
            long archived = Fixtures.count(ds, "SELECT count(*) FROM outbox_job_archive WHERE state = 'done'");
            if (left != 0 || archived != jobs) {
                throw new IllegalStateException("burn-down: " + left + " jobs left, " + archived + " archived");
            }
            Map<String, Object> r = env.result("burn-down", jobs, drain.seconds());
            r.put("drain", true);
            r.put("handlerRuns", drain.handlerRuns());
            r.put("config", Fixtures.describe(config));
            r.put(
                    "notes",
                    "one engine, no-op handler, " + config.concurrency() + " threads, claim batch "
                            + config.claimBatchSize() + ", completion batch " + config.completionBatchSize());
            log.info("burn-down: {} jobs in {} s = {} jobs/s", jobs, drain.seconds(), r.get("jobsPerSecond"));
            return r;
        } finally {
            TestDatabase.drop(ds);
        }
    }

    record Drain(double seconds, long handlerRuns) {}

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
        long t0 = System.nanoTime();
        postbox.start();
        try {
            if (!done.await(30, TimeUnit.MINUTES)) {
                throw new IllegalStateException("drain did not finish: " + completed.get() + " of " + jobs);
            }
            return new Drain((System.nanoTime() - t0) / 1e9, runs.get());
        } finally {
            postbox.stop();
        }
    }
}
