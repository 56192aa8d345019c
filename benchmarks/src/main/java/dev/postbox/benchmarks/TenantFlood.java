package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Scenario {@code tenant-flood} (issue 18): tenant "flood" has {@code floodJobs} no-op jobs waiting
 * (inserted at once, as in the burn-down) when one engine starts; tenant "quiet" enqueues one job
 * every {@code 1 / quietRate} seconds through the API while the flood drains. Reports the flood's
 * drain rate (compare it with the burn-down's: the target is at least 0.8 of it) and the quiet
 * tenant's enqueue-to-start latency (p50, p99, max; the target is p99 &lt;= 100 ms).
 */
final class TenantFlood {

    static final String NAME = "tenant-flood";

    private static final Logger log = LoggerFactory.getLogger(TenantFlood.class);

    /** Sizes: {@code -Dbench.tenantFloodJobs=100000 -Dbench.tenantQuietRate=10}. */
    record Settings(int floodJobs, double quietRate) {

        static Settings fromSystemProperties() {
            return new Settings(
                    Integer.getInteger("bench.tenantFloodJobs", 100_000),
                    Double.parseDouble(System.getProperty("bench.tenantQuietRate", "10")));
        }
    }

    private TenantFlood() {}

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_job (kind, payload, tenant)"
                            + " SELECT 'noop', jsonb_build_object('n', g), 'flood' FROM generate_series(1, ?) g")) {
                c.setAutoCommit(true);
                ps.setInt(1, settings.floodJobs());
                ps.executeUpdate();
                Fixtures.execute(c, "VACUUM ANALYZE outbox_job");
            }
            PostboxConfig config = Fixtures.engineConfig();
            CountDownLatch drained = new CountDownLatch(1);
            AtomicLong floodDone = new AtomicLong();
            Map<Long, Long> quietStarted = new ConcurrentHashMap<>();
            PostboxListener listener = new PostboxListener() {
                @Override
                public void completed(Job job, Duration duration) {
                    if (job.tenant().orElse("").equals("flood")
                            && floodDone.incrementAndGet() == settings.floodJobs()) {
                        drained.countDown();
                    }
                }
            };
            Postbox postbox = Postbox.builder(ds)
                    .config(config)
                    .listener(listener)
                    .handler("noop", job -> {})
                    .handler("quiet", job -> quietStarted.put(job.id(), System.nanoTime()))
                    .build();
            TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
            Map<Long, Long> quietEnqueued = new ConcurrentHashMap<>();
            AtomicInteger seq = new AtomicInteger();
            ScheduledExecutorService quiet = Executors.newSingleThreadScheduledExecutor();
            long t0 = System.nanoTime();
            postbox.start();
            double seconds;
            try {
                quiet.scheduleAtFixedRate(
                        () -> {
                            long before = System.nanoTime();
                            Long id = tx.execute(s -> postbox.outbox()
                                    .enqueue(JobRequest.builder("quiet")
                                            .payload(Map.of("n", seq.getAndIncrement()))
                                            .tenant("quiet")
                                            .build())
                                    .jobId());
                            quietEnqueued.put(id, before);
                        },
                        0,
                        Math.max(1, Math.round(1_000_000 / settings.quietRate())),
                        TimeUnit.MICROSECONDS);
                if (!drained.await(Long.getLong("bench.drainTimeoutMinutes", 10), TimeUnit.MINUTES)) {
                    throw new IllegalStateException("tenant-flood: " + floodDone.get() + " of " + settings.floodJobs()
                            + " flood jobs done before the timeout");
                }
                seconds = (System.nanoTime() - t0) / 1e9;
            } finally {
                quiet.shutdown();
                quiet.awaitTermination(10, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!quietStarted.keySet().containsAll(quietEnqueued.keySet()) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            postbox.stop();
            List<Double> latencies = new ArrayList<>();
            quietEnqueued.forEach((id, enqueued) -> {
                Long started = quietStarted.get(id);
                if (started != null) {
                    latencies.add((started - enqueued) / 1e6);
                }
            });
            latencies.sort(null);
            Map<String, Object> r = env.result(NAME, settings.floodJobs(), seconds);
            r.put("drain", true);
            r.put("floodJobsPerSecond", Env.round(settings.floodJobs() / seconds, 1));
            r.put("quietJobs", quietEnqueued.size());
            r.put("quietStarted", latencies.size());
            r.put("quietRatePerSecond", settings.quietRate());
            r.put("p50Ms", percentile(latencies, 0.50));
            r.put("p99Ms", percentile(latencies, 0.99));
            r.put("p999Ms", percentile(latencies, 0.999));
            r.put("quietMaxMs", latencies.isEmpty() ? null : Env.round(latencies.get(latencies.size() - 1), 1));
            r.put("config", Fixtures.describe(config));
            r.put(
                    "notes",
                    "tenant 'flood' drains " + settings.floodJobs() + " pre-inserted no-op jobs while tenant 'quiet'"
                            + " enqueues " + settings.quietRate() + "/s; p50/p99 are the quiet tenant's"
                            + " enqueue-to-start latencies (target p99 <= 100 ms), jobsPerSecond the flood's"
                            + " drain (target >= 0.8 x burn-down)");
            log.info(
                    "tenant-flood: {} flood jobs in {} s; quiet p50 {} ms, p99 {} ms",
                    settings.floodJobs(),
                    Env.round(seconds, 2),
                    r.get("p50Ms"),
                    r.get("p99Ms"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    private static Double percentile(List<Double> sorted, double q) {
        if (sorted.isEmpty()) {
            return null;
        }
        int i = Math.max(0, (int) Math.ceil(sorted.size() * q) - 1);
        return Env.round(sorted.get(Math.min(i, sorted.size() - 1)), 1);
    }
}
