package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import java.sql.Connection;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 5: the same business transaction (insert one order, commit) with and without one
 * intent, alternating on one connection so that drift affects both alike. The relay is not
 * running; only the writer's cost is measured. Times are client-side, begin to commit returned.
 */
final class EnqueueOverhead {

    private static final Logger log = LoggerFactory.getLogger(EnqueueOverhead.class);

    private EnqueueOverhead() {}

    static Map<String, Object> run(Env env, int transactions) throws Exception {
        HikariDataSource ds = Db.create();
        try {
            Orders.createTable(ds);
            Outbox outbox =
                    Postbox.builder(ds).config(Fixtures.engineConfig()).build().outbox();
            Histogram bare = new Histogram(60_000_000L, 3);
            Histogram withIntent = new Histogram(60_000_000L, 3);
            int warmup = Math.max(500, transactions / 5);
            long t0 = System.nanoTime();
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < warmup + transactions; i++) {
                    boolean intent = (i & 1) == 1;
                    long begin = System.nanoTime();
                    long order = Orders.insert(c, i);
                    if (intent) {
                        outbox.enqueue(c, JobRequest.of("order-placed", Map.of("orderId", order)));
                    }
                    c.commit();
                    long micros = (System.nanoTime() - begin) / 1000;
                    if (i >= warmup) {
                        (intent ? withIntent : bare).recordValue(micros);
                    }
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Object> r = env.result("enqueue-overhead", withIntent.getTotalCount(), seconds);
            r.put("jobsPerSecond", null); // not a throughput scenario
            r.put("p50Ms", StartLatency.ms(withIntent, 50));
            r.put("p99Ms", StartLatency.ms(withIntent, 99));
            r.put("p999Ms", StartLatency.ms(withIntent, 99.9));
            r.put("bareP50Ms", StartLatency.ms(bare, 50));
            r.put("bareP99Ms", StartLatency.ms(bare, 99));
            r.put("bareP999Ms", StartLatency.ms(bare, 99.9));
            r.put("withIntentP50Ms", StartLatency.ms(withIntent, 50));
            r.put("withIntentP99Ms", StartLatency.ms(withIntent, 99));
            r.put("p50DeltaMs", Env.round(StartLatency.ms(withIntent, 50) - StartLatency.ms(bare, 50), 3));
            r.put("p99DeltaMs", Env.round(StartLatency.ms(withIntent, 99) - StartLatency.ms(bare, 99), 3));
            r.put("bareTransactions", bare.getTotalCount());
            r.put(
                    "notes",
                    "p50/p99 columns are with the intent; bare p50 " + r.get("bareP50Ms") + " ms, p99 "
                            + r.get("bareP99Ms") + " ms; delta p50 +" + r.get("p50DeltaMs") + " ms, p99 +"
                            + r.get("p99DeltaMs") + " ms");
            log.info(
                    "enqueue overhead: bare p50 {} p99 {}; with intent p50 {} p99 {}",
                    r.get("bareP50Ms"),
                    r.get("bareP99Ms"),
                    r.get("withIntentP50Ms"),
                    r.get("withIntentP99Ms"));
            return r;
        } finally {
            Db.drop(ds);
        }
    }
}
