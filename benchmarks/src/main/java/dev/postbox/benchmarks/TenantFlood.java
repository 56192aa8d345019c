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
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Scenario {@code tenant-flood} (issue 18): tenant "flood" gets {@code floodJobs} no-op jobs at once
 * (one INSERT statement) while one engine runs; tenant "quiet" enqueues one job every {@code 1 /
 * quietRate} seconds through the API, each in its own transaction, from the flood's commit until it
 * is drained. One warm-up round (the engine starting with the first flood waiting: its first claims
 * and the enqueue path's first calls are cold) is reported but not counted; then {@code rounds}
 * measured rounds on the running engine, their quiet latencies pooled. Reports the flood's drain rate
 * (total jobs over total drain time of the measured rounds; compare it with the burn-down's, the
 * target is at least 0.8 of it) and the quiet tenant's enqueue-to-start latency (p50, p99, max; the
 * target is p99 &lt;= 100 ms), from before the enqueue call to the first line of its handler.
 */
final class TenantFlood {

    static final String NAME = "tenant-flood";

    private static final Logger log = LoggerFactory.getLogger(TenantFlood.class);

    private static final String FLOOD = "INSERT INTO outbox_job (kind, payload, tenant)"
            + " SELECT 'noop', jsonb_build_object('n', g), 'flood' FROM generate_series(1, ?) g";

    /**
     * Sizes: {@code -Dbench.tenantFloodJobs=100000 -Dbench.tenantQuietRate=10
     * -Dbench.tenantFloodRounds=5}.
     */
    record Settings(int floodJobs, double quietRate, int rounds) {

        static Settings fromSystemProperties() {
            return new Settings(
                    Integer.getInteger("bench.tenantFloodJobs", 100_000),
                    Double.parseDouble(System.getProperty("bench.tenantQuietRate", "10")),
                    Integer.getInteger("bench.tenantFloodRounds", 5));
        }
    }

    /** One round: the flood's drain time and the quiet tenant's latencies (ms, in enqueue order). */
    private record Round(double seconds, List<Double> quietMillis, int quietEnqueued) {}

    private TenantFlood() {}

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            flood(ds, settings.floodJobs());
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(true);
                Fixtures.execute(c, "VACUUM ANALYZE outbox_job");
            }
            PostboxConfig config = Fixtures.engineConfig();
            AtomicLong floodDone = new AtomicLong();
            AtomicLong floodTarget = new AtomicLong(settings.floodJobs());
            AtomicReference<CountDownLatch> drained = new AtomicReference<>(new CountDownLatch(1));
            Map<Long, Long> quietStarted = new ConcurrentHashMap<>();
            PostboxListener listener = new PostboxListener() {
                @Override
                public void completed(Job job, Duration duration) {
                    if (job.tenant().orElse("").equals("flood") && floodDone.incrementAndGet() == floodTarget.get()) {
                        drained.get().countDown();
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
            AtomicInteger seq = new AtomicInteger();
            List<Round> rounds = new ArrayList<>();
            try {
                long t0 = System.nanoTime();
                postbox.start();
                Round warmUp = round(postbox, tx, seq, settings, drained.get(), quietStarted, t0);
                for (int r = 0; r < settings.rounds(); r++) {
                    floodTarget.addAndGet(settings.floodJobs());
                    drained.set(new CountDownLatch(1));
                    flood(ds, settings.floodJobs());
                    long t = System.nanoTime();
                    rounds.add(round(postbox, tx, seq, settings, drained.get(), quietStarted, t));
                }
                return result(env, settings, config, warmUp, rounds);
            } finally {
                postbox.stop();
            }
        } finally {
            Db.drop(ds);
        }
    }

    private static void flood(HikariDataSource ds, int jobs) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(FLOOD)) {
            c.setAutoCommit(true);
            ps.setInt(1, jobs);
            ps.executeUpdate();
        }
    }

    /** The quiet tenant's enqueues from now until the flood that started at {@code t0} is drained. */
    private static Round round(
            Postbox postbox,
            TransactionTemplate tx,
            AtomicInteger seq,
            Settings settings,
            CountDownLatch drained,
            Map<Long, Long> quietStarted,
            long t0)
            throws Exception {
        Map<Long, Long> quietEnqueued = new ConcurrentHashMap<>();
        ScheduledExecutorService quiet = Executors.newSingleThreadScheduledExecutor();
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
                throw new IllegalStateException(
                        "tenant-flood: the flood of " + settings.floodJobs() + " jobs was not done before the timeout");
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
        List<Double> latencies = new ArrayList<>();
        new TreeMap<>(quietEnqueued).forEach((id, enqueued) -> {
            Long started = quietStarted.get(id);
            if (started != null) {
                latencies.add((started - enqueued) / 1e6);
            }
        });
        return new Round(seconds, latencies, quietEnqueued.size());
    }

    private static Map<String, Object> result(
            Env env, Settings settings, PostboxConfig config, Round warmUp, List<Round> rounds) {
        long jobs = (long) settings.floodJobs() * rounds.size();
        double seconds = rounds.stream().mapToDouble(Round::seconds).sum();
        List<Double> latencies = new ArrayList<>();
        int enqueued = 0;
        for (Round r : rounds) {
            latencies.addAll(r.quietMillis());
            enqueued += r.quietEnqueued();
        }
        latencies.sort(null);
        Map<String, Object> r = env.result(NAME, jobs, seconds);
        r.put("drain", true);
        r.put("rounds", rounds.size());
        r.put("floodJobsPerRound", settings.floodJobs());
        r.put("floodJobsPerSecond", Env.round(jobs / seconds, 1));
        r.put(
                "floodJobsPerSecondByRound",
                rounds.stream()
                        .map(x -> Env.round(settings.floodJobs() / x.seconds(), 1))
                        .toList());
        r.put("quietJobs", enqueued);
        r.put("quietStarted", latencies.size());
        r.put("quietRatePerSecond", settings.quietRate());
        r.put("p50Ms", percentile(latencies, 0.50));
        r.put("p99Ms", percentile(latencies, 0.99));
        r.put("p999Ms", percentile(latencies, 0.999));
        r.put("quietMaxMs", latencies.isEmpty() ? null : Env.round(latencies.get(latencies.size() - 1), 1));
        r.put(
                "quietMaxMsByRound",
                rounds.stream()
                        .map(x -> x.quietMillis().stream()
                                .mapToDouble(Double::doubleValue)
                                .max()
                                .orElse(0))
                        .map(v -> Env.round(v, 1))
                        .toList());
        r.put("warmUpFloodJobsPerSecond", Env.round(settings.floodJobs() / warmUp.seconds(), 1));
        r.put(
                "warmUpQuietMs",
                warmUp.quietMillis().stream().map(v -> Env.round(v, 1)).toList());
        r.put("config", Fixtures.describe(config));
        r.put(
                "notes",
                "tenant 'flood' gets " + settings.floodJobs() + " no-op jobs at once, " + rounds.size()
                        + " times on a running engine (after one warm-up round, not counted), while tenant 'quiet'"
                        + " enqueues " + settings.quietRate() + "/s; p50/p99 are the quiet tenant's"
                        + " enqueue-to-start latencies over the measured rounds (target p99 <= 100 ms),"
                        + " jobsPerSecond the flood's drain (target >= 0.8 x burn-down)");
        log.info(
                "tenant-flood: {} x {} flood jobs, {} jobs/s; quiet p50 {} ms, p99 {} ms, max {} ms ({} jobs)",
                rounds.size(),
                settings.floodJobs(),
                r.get("floodJobsPerSecond"),
                r.get("p50Ms"),
                r.get("p99Ms"),
                r.get("quietMaxMs"),
                latencies.size());
        return r;
    }

    private static Double percentile(List<Double> sorted, double q) {
        if (sorted.isEmpty()) {
            return null;
        }
        int i = Math.max(0, (int) Math.ceil(sorted.size() * q) - 1);
        return Env.round(sorted.get(Math.min(i, sorted.size() - 1)), 1);
    }
}
