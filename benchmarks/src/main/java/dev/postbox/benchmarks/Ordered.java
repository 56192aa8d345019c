package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Scenario {@code ordered} (issue 30), per-key order at the engine's default settings:
 *
 * <ul>
 *   <li>(a) one hot key with a backlog of {@code hotKeyJobs} jobs (one INSERT, one commit): the drain
 *       rate in order (target at least 500 jobs/s), with the inversions and handler overlaps seen;
 *   <li>(b) {@code keys} keys, {@code rate} jobs/s in total from {@code producers} threads, each job
 *       its own transaction through the API, for {@code seconds}: the latency from the enqueue's
 *       commit to its handler's start, p50 and p99 (target p99 &lt;= 50 ms);
 *   <li>(c) the same with {@code hotKeys} keys.
 * </ul>
 *
 * Each part runs on a fresh database with one engine.
 */
final class Ordered {

    static final String NAME = "ordered";

    private static final Logger log = LoggerFactory.getLogger(Ordered.class);

    private static final String BACKLOG = "INSERT INTO outbox_job (kind, payload, ordering_key)"
            + " SELECT 'step', jsonb_build_object('n', g), 'hot' FROM generate_series(1, ?) g";

    /**
     * Sizes: {@code -Dbench.orderedHotKeyJobs=20000 -Dbench.orderedKeys=1000 -Dbench.orderedHotKeys=4
     * -Dbench.orderedRate=1000 -Dbench.orderedProducers=8 -Dbench.orderedSeconds=30}.
     */
    record Settings(int hotKeyJobs, int keys, int hotKeys, double rate, int producers, int seconds) {

        static Settings fromSystemProperties() {
            return new Settings(
                    Integer.getInteger("bench.orderedHotKeyJobs", 20_000),
                    Integer.getInteger("bench.orderedKeys", 1_000),
                    Integer.getInteger("bench.orderedHotKeys", 4),
                    Double.parseDouble(System.getProperty("bench.orderedRate", "1000")),
                    Integer.getInteger("bench.orderedProducers", 8),
                    Integer.getInteger("bench.orderedSeconds", 30));
        }
    }

    /** Handlers of one key running at once, and jobs run after a later one of their key. */
    private static final class Checks {
        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        final Map<String, AtomicLong> last = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger inversions = new AtomicInteger();
        final AtomicInteger ran = new AtomicInteger();

        void enter(String key, long n) {
            if (running.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            if (last.computeIfAbsent(key, k -> new AtomicLong()).getAndSet(n) > n) {
                inversions.incrementAndGet();
            }
            ran.incrementAndGet();
        }

        void leave(String key) {
            running.get(key).decrementAndGet();
        }
    }

    /** The payload of a backlog job: its place in the key. */
    record Step(long n) {}

    private Ordered() {}

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        PostboxConfig config = Fixtures.engineConfig();
        Map<String, Object> hot = hotKey(settings, config);
        Map<String, Object> many = steady(settings, config, settings.keys());
        Map<String, Object> few = steady(settings, config, settings.hotKeys());
        Map<String, Object> r =
                env.result(NAME, ((Number) hot.get("jobs")).longValue(), ((Number) hot.get("seconds")).doubleValue());
        r.put("drain", true);
        r.put("hotKey", hot);
        r.put("manyKeys", many);
        r.put("hotKeys", few);
        r.put("p50Ms", many.get("p50Ms"));
        r.put("p99Ms", many.get("p99Ms"));
        r.put("p999Ms", many.get("p999Ms"));
        r.put("config", Fixtures.describe(config));
        r.put(
                "notes",
                "jobsPerSecond: one hot key's backlog of " + settings.hotKeyJobs() + " drained in order (target"
                        + " >= 500); p50/p99: enqueue-commit to handler start with " + settings.keys() + " keys at "
                        + settings.rate() + " jobs/s from " + settings.producers() + " threads (target p99 <= 50 ms);"
                        + " hotKeys: the same with " + settings.hotKeys() + " keys");
        log.info(
                "ordered: hot key {} jobs/s; {} keys p50 {} ms p99 {} ms; {} keys p50 {} ms p99 {} ms",
                r.get("jobsPerSecond"),
                settings.keys(),
                many.get("p50Ms"),
                many.get("p99Ms"),
                settings.hotKeys(),
                few.get("p50Ms"),
                few.get("p99Ms"));
        return r;
    }

    /** (a) One key's backlog, drained in order. */
    private static Map<String, Object> hotKey(Settings settings, PostboxConfig config) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement(BACKLOG)) {
                c.setAutoCommit(true);
                ps.setInt(1, settings.hotKeyJobs());
                ps.executeUpdate();
                Fixtures.execute(c, "VACUUM ANALYZE outbox_job");
            }
            Checks checks = new Checks();
            Postbox postbox = Postbox.builder(ds)
                    .config(config)
                    .handler("step", job -> {
                        checks.enter("hot", job.payload(Step.class).n());
                        checks.leave("hot");
                    })
                    .build();
            long t0 = System.nanoTime();
            postbox.start();
            try {
                long deadline = t0 + TimeUnit.MINUTES.toNanos(Long.getLong("bench.drainTimeoutMinutes", 10));
                while (checks.ran.get() < settings.hotKeyJobs()) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("ordered: the hot key's backlog was not drained in time ("
                                + checks.ran.get() + " of " + settings.hotKeyJobs() + ")");
                    }
                    Thread.sleep(5);
                }
            } finally {
                postbox.stop();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("jobs", settings.hotKeyJobs());
            r.put("seconds", Env.round(seconds, 3));
            r.put("jobsPerSecond", Env.round(settings.hotKeyJobs() / seconds, 1));
            r.put("inversions", checks.inversions.get());
            r.put("overlaps", checks.overlaps.get());
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    /** (b), (c): a steady stream over {@code keys} keys; enqueue-commit to handler start. */
    private static Map<String, Object> steady(Settings settings, PostboxConfig config, int keys) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            Checks checks = new Checks();
            Map<Long, Long> committed = new ConcurrentHashMap<>();
            Map<Long, Long> started = new ConcurrentHashMap<>();
            Postbox postbox = Postbox.builder(ds)
                    .config(config)
                    .handler("step", job -> {
                        started.put(job.id(), System.nanoTime());
                        String key = job.orderingKey().orElse("");
                        checks.enter(key, 0);
                        checks.leave(key);
                    })
                    .build();
            TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
            postbox.start();
            ScheduledExecutorService producers = Executors.newScheduledThreadPool(settings.producers());
            try {
                long periodMicros = Math.max(1, Math.round(settings.producers() * 1_000_000 / settings.rate()));
                for (int p = 0; p < settings.producers(); p++) {
                    producers.scheduleAtFixedRate(
                            () -> {
                                String key =
                                        "key-" + ThreadLocalRandom.current().nextInt(keys);
                                Long id = tx.execute(s -> postbox.outbox()
                                        .enqueue(JobRequest.builder("step")
                                                .payload(Map.of("key", key))
                                                .orderingKey(key)
                                                .build())
                                        .jobId());
                                committed.put(id, System.nanoTime());
                            },
                            p * periodMicros / settings.producers(),
                            periodMicros,
                            TimeUnit.MICROSECONDS);
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(settings.seconds()));
            } finally {
                producers.shutdown();
                producers.awaitTermination(30, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!started.keySet().containsAll(committed.keySet()) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            postbox.stop();
            List<Double> latencies = new ArrayList<>();
            committed.forEach((id, at) -> {
                Long start = started.get(id);
                if (start != null) {
                    latencies.add(Math.max(0, start - at) / 1e6);
                }
            });
            latencies.sort(null);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("keys", keys);
            r.put("ratePerSecond", settings.rate());
            r.put("producers", settings.producers());
            r.put("seconds", settings.seconds());
            r.put("jobs", committed.size());
            r.put("started", latencies.size());
            r.put("p50Ms", percentile(latencies, 0.50));
            r.put("p99Ms", percentile(latencies, 0.99));
            r.put("p999Ms", percentile(latencies, 0.999));
            r.put("maxMs", latencies.isEmpty() ? null : Env.round(latencies.get(latencies.size() - 1), 1));
            r.put("overlaps", checks.overlaps.get());
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
