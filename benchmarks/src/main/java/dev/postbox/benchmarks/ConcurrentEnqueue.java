package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario: the application's commit rate with concurrent producers, with and without Postbox. Each
 * producer holds one connection and commits business transactions (one order row) as fast as it can,
 * for 8 and for 32 producers, in three variants measured in the same run:
 *
 * <ul>
 *   <li><b>bare</b>: the business transaction alone;
 *   <li><b>intent</b>: the same plus one {@code outbox.enqueue(connection, ...)}, as shipped (no
 *       NOTIFY in the transaction; coalesced notifications from Postbox's own connection);
 *   <li><b>trigger</b>: the same plus the insert trigger of schema V1-V6 put back, which ran {@code
 *       pg_notify} in every enqueueing transaction: the cost that V7 removed, for comparison;
 *   <li><b>secondRow</b>: the business transaction with a second order row instead of the intent:
 *       what one more statement in the transaction costs without Postbox (one more round trip and
 *       one more row), the floor of any enqueue that writes in the caller's transaction.
 * </ul>
 *
 * The variants take turns in short rounds (bare, intent, trigger, second row, bare, ...), so that drift and the
 * machine's other load affect all alike; both tables are emptied before each round. No engine runs:
 * this measures what enqueue costs the producers, not the relay. Postbox's own connections (the
 * notification sender and the commit watcher) come from the producers' pool, which has room for them.
 */
final class ConcurrentEnqueue {

    private static final Logger log = LoggerFactory.getLogger(ConcurrentEnqueue.class);

    static final String NAME = "concurrent-enqueue";

    /** V1's trigger, as it was before V7 dropped it. */
    private static final String OLD_TRIGGER =
            "CREATE FUNCTION outbox_job_notify() RETURNS trigger LANGUAGE plpgsql AS $$"
                    + " BEGIN PERFORM pg_notify('postbox_job', ''); RETURN NULL; END; $$;"
                    + " CREATE TRIGGER outbox_job_notify AFTER INSERT ON outbox_job"
                    + " FOR EACH STATEMENT EXECUTE FUNCTION outbox_job_notify()";

    private static final String DROP_OLD_TRIGGER =
            "DROP TRIGGER outbox_job_notify ON outbox_job; DROP FUNCTION outbox_job_notify()";

    enum Variant {
        BARE("bare"),
        INTENT("intent"),
        TRIGGER("trigger"),
        SECOND_ROW("secondRow");

        /** The variant's name in the JSON. */
        final String key;

        Variant(String key) {
            this.key = key;
        }
    }

    /** {@code bench.concurrentEnqueue*} system properties. */
    record Settings(List<Integer> producers, int rounds, double roundSeconds, double warmupSeconds) {

        static Settings fromSystemProperties() {
            List<Integer> producers = new ArrayList<>();
            for (String s : System.getProperty("bench.concurrentEnqueueProducers", "8,32")
                    .split(",")) {
                producers.add(Integer.parseInt(s.trim()));
            }
            return new Settings(
                    producers,
                    Integer.getInteger("bench.concurrentEnqueueRounds", 3),
                    Double.parseDouble(System.getProperty("bench.concurrentEnqueueSeconds", "4")),
                    Double.parseDouble(System.getProperty("bench.concurrentEnqueueWarmupSeconds", "2")));
        }
    }

    private ConcurrentEnqueue() {}

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        HikariDataSource db = Db.create();
        long t0 = System.nanoTime();
        long totalCommits = 0;
        try {
            Orders.createTable(db);
            List<Map<String, Object>> levels = new ArrayList<>();
            for (int producers : settings.producers()) {
                Map<String, Object> level = measure(db.getJdbcUrl(), producers, settings);
                levels.add(level);
                for (Variant v : Variant.values()) {
                    totalCommits += ((Number) level.get(v.key + "Commits")).longValue();
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Object> r = env.result(NAME, totalCommits, seconds);
            r.put("jobsPerSecond", null); // commit rates are per level below
            r.put(
                    "settings",
                    Map.of(
                            "producers", settings.producers(),
                            "rounds", settings.rounds(),
                            "roundSeconds", settings.roundSeconds(),
                            "warmupSeconds", settings.warmupSeconds()));
            r.put("levels", levels);
            StringBuilder notes =
                    new StringBuilder("commits/s bare / intent / old trigger / second row; intent ÷ bare:");
            for (Map<String, Object> level : levels) {
                notes.append(' ')
                        .append(level.get("producers"))
                        .append(" producers ")
                        .append(Math.round((Double) level.get("bareCommitsPerSecond")))
                        .append(" / ")
                        .append(Math.round((Double) level.get("intentCommitsPerSecond")))
                        .append(" / ")
                        .append(Math.round((Double) level.get("triggerCommitsPerSecond")))
                        .append(" / ")
                        .append(Math.round((Double) level.get("secondRowCommitsPerSecond")))
                        .append(", ")
                        .append(level.get("intentRatio"))
                        .append("× (second row ")
                        .append(level.get("secondRowRatio"))
                        .append("×);");
            }
            r.put("notes", notes.toString());
            return r;
        } finally {
            Db.drop(db);
        }
    }

    private static Map<String, Object> measure(String url, int producers, Settings settings) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        // One connection per producer, held for a round; two for Postbox's sender and watcher.
        config.setMaximumPoolSize(producers + 2);
        config.setMinimumIdle(producers + 2);
        config.setPoolName("concurrent-enqueue-" + producers);
        Map<Variant, Long> commits = new LinkedHashMap<>();
        Map<Variant, Double> seconds = new LinkedHashMap<>();
        Map<Variant, List<Double>> loads = new LinkedHashMap<>();
        for (Variant v : Variant.values()) {
            commits.put(v, 0L);
            seconds.put(v, 0.0);
            loads.put(v, new ArrayList<>());
        }
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Outbox outbox = Postbox.builder(ds).config(config()).build().outbox();
            // Warm-up: every variant once, not counted (JIT, the pool, the tables' first pages).
            for (Variant v : Variant.values()) {
                round(ds, outbox, v, producers, settings.warmupSeconds() / Variant.values().length);
            }
            for (int i = 0; i < settings.rounds(); i++) {
                for (Variant v : Variant.values()) {
                    long n = round(ds, outbox, v, producers, settings.roundSeconds());
                    commits.merge(v, n, Long::sum);
                    seconds.merge(v, settings.roundSeconds(), Double::sum);
                    loads.get(v).add(Env.loadAverage());
                    log.info(
                            "{} producers, {}: {} commits/s (load average {})",
                            producers,
                            v.key,
                            Math.round(n / settings.roundSeconds()),
                            Env.loadAverage());
                }
            }
        }
        Map<String, Object> level = new LinkedHashMap<>();
        level.put("producers", producers);
        for (Variant v : Variant.values()) {
            level.put(v.key + "Commits", commits.get(v));
            level.put(v.key + "CommitsPerSecond", Env.round(commits.get(v) / seconds.get(v), 1));
            level.put(v.key + "LoadAverages", loads.get(v));
        }
        double bare = commits.get(Variant.BARE) / seconds.get(Variant.BARE);
        level.put("intentRatio", Env.round(commits.get(Variant.INTENT) / seconds.get(Variant.INTENT) / bare, 3));
        level.put("triggerRatio", Env.round(commits.get(Variant.TRIGGER) / seconds.get(Variant.TRIGGER) / bare, 3));
        double secondRow = commits.get(Variant.SECOND_ROW) / seconds.get(Variant.SECOND_ROW);
        level.put("secondRowRatio", Env.round(secondRow / bare, 3));
        // Postbox's own share: the intent against the same transaction with any one more row.
        level.put(
                "intentToSecondRowRatio",
                Env.round(commits.get(Variant.INTENT) / seconds.get(Variant.INTENT) / secondRow, 3));
        level.put("loadAverage", Env.loadAverage());
        return level;
    }

    /** One round of one variant: returns the commits that completed within it. */
    private static long round(HikariDataSource ds, Outbox outbox, Variant variant, int producers, double seconds)
            throws Exception {
        Fixtures.execute(ds, "TRUNCATE bench_order, outbox_job");
        if (variant == Variant.TRIGGER) {
            Fixtures.execute(ds, OLD_TRIGGER);
        }
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        try {
            CountDownLatch ready = new CountDownLatch(producers);
            CountDownLatch go = new CountDownLatch(1);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<Long>> runs = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                long base = (long) p << 40;
                runs.add(pool.submit(() -> {
                    try (Connection c = ds.getConnection()) {
                        c.setAutoCommit(false);
                        ready.countDown();
                        go.await();
                        long n = 0;
                        while (!stop.get()) {
                            long order = Orders.insert(c, base + n);
                            if (variant == Variant.SECOND_ROW) {
                                Orders.insert(c, base + n + 1);
                            } else if (variant != Variant.BARE) {
                                outbox.enqueue(c, JobRequest.of("order-placed", Map.of("orderId", order)));
                            }
                            c.commit();
                            if (!stop.get()) {
                                n++; // only commits that returned before the end of the round count
                            }
                        }
                        c.setAutoCommit(true);
                        return n;
                    }
                }));
            }
            ready.await();
            go.countDown();
            Thread.sleep((long) (seconds * 1000));
            stop.set(true);
            long total = 0;
            for (Future<Long> run : runs) {
                total += run.get();
            }
            return total;
        } finally {
            pool.shutdownNow();
            if (variant == Variant.TRIGGER) {
                Fixtures.execute(ds, DROP_OLD_TRIGGER);
            }
        }
    }

    /** The defaults, or {@code bench.notifyInterval} (milliseconds) to compare intervals. */
    static PostboxConfig config() {
        String interval = System.getProperty("bench.notifyInterval");
        return interval == null
                ? PostboxConfig.ofDefaults()
                : PostboxConfig.custom()
                        .notifyInterval(Duration.ofMillis(Long.parseLong(interval)))
                        .build();
    }
}
