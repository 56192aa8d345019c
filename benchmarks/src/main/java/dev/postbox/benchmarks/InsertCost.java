package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * Scenario insert-cost: what each index and trigger of the live table costs the intent insert. On a
 * fresh database with the real schema (SchemaInstaller), concurrent producers commit business
 * transactions (one {@code bench_order} row plus {@code outbox.enqueue}, the real enqueue statement)
 * as fast as they can with the full table, then with each index of {@code outbox_job} dropped in turn
 * and each trigger dropped in turn (put back after its round from its catalog definition), plus the
 * business row alone and a plain second row instead of the intent. The variants take turns in rounds
 * (tables emptied before each), and each variant's result is the median of its rounds.
 */
final class InsertCost {

    private static final Logger log = LoggerFactory.getLogger(InsertCost.class);
    static final String NAME = "insert-cost";

    record Settings(int producers, int rounds, double roundSeconds) {

        static Settings fromSystemProperties() {
            return new Settings(
                    Integer.getInteger("bench.insertCostProducers", 8),
                    Integer.getInteger("bench.insertCostRounds", 5),
                    Double.parseDouble(System.getProperty("bench.insertCostSeconds", "3")));
        }
    }

    /** One variant: what it drops (null for none) and how to put it back. */
    record Variant(String name, String kind, String drop, String restore, String skipped) {}

    private InsertCost() {}

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        HikariDataSource db = Db.create();
        long t0 = System.nanoTime();
        try {
            Orders.createTable(db);
            List<Variant> variants = variants(db);
            Map<String, List<Double>> rates = new LinkedHashMap<>();
            Map<String, String> failures = new LinkedHashMap<>();
            long commits = 0;
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.getJdbcUrl());
            config.setMaximumPoolSize(settings.producers() + 2);
            config.setMinimumIdle(settings.producers() + 2);
            config.setPoolName("insert-cost");
            try (HikariDataSource ds = new HikariDataSource(config)) {
                Outbox outbox = Postbox.builder(ds)
                        .config(ConcurrentEnqueue.config())
                        .build()
                        .outbox();
                // Warm-up, not counted: the full table once (JIT, pool, first pages).
                round(ds, outbox, variants.get(0), settings.producers(), Math.min(2, settings.roundSeconds()));
                for (int i = 0; i < settings.rounds(); i++) {
                    for (Variant v : variants) {
                        if (v.skipped() != null || failures.containsKey(v.name())) {
                            continue;
                        }
                        try {
                            long n = round(ds, outbox, v, settings.producers(), settings.roundSeconds());
                            commits += n;
                            rates.computeIfAbsent(v.name(), k -> new ArrayList<>())
                                    .add(Env.round(n / settings.roundSeconds(), 1));
                        } catch (Exception e) {
                            failures.put(v.name(), String.valueOf(e.getCause() != null ? e.getCause() : e));
                            log.warn("insert-cost {}: {}", v.name(), failures.get(v.name()));
                        }
                    }
                }
            }
            Map<String, Object> r = env.result(NAME, commits, (System.nanoTime() - t0) / 1e9);
            r.put("jobsPerSecond", null); // commit rates are per variant below
            r.put("producers", settings.producers());
            r.put("rounds", settings.rounds());
            r.put("roundSeconds", settings.roundSeconds());
            Double full = median(rates.get("full"));
            r.put("fullCommitsPerSecond", full);
            List<Map<String, Object>> out = new ArrayList<>();
            StringBuilder notes = new StringBuilder("median commits/s; share of the full intent's commit time:");
            for (Variant v : variants) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("variant", v.name());
                m.put("kind", v.kind());
                m.put("definition", v.restore());
                List<Double> byRound = rates.get(v.name());
                Double median = median(byRound);
                m.put("commitsPerSecondByRound", byRound);
                m.put("medianCommitsPerSecond", median);
                m.put("ratioToFull", full == null || median == null ? null : Env.round(median / full, 3));
                // the share of the full intent's commit time that this variant saves (negative: costs more)
                m.put("shareOfFullCommitTime", full == null || median == null ? null : Env.round(1 - full / median, 3));
                m.put("skipped", v.skipped());
                m.put("failure", failures.get(v.name()));
                out.add(m);
                notes.append(' ')
                        .append(v.name())
                        .append(' ')
                        .append(median == null ? "n/a" : Math.round(median))
                        .append(" (")
                        .append(m.get("shareOfFullCommitTime"))
                        .append(");");
            }
            r.put("variants", out);
            r.put("notes", notes.toString());
            log.info("insert-cost: {}", notes);
            return r;
        } finally {
            Db.drop(db);
        }
    }

    /** full, each index, each trigger, second row, bare: read from the catalog of the installed schema. */
    static List<Variant> variants(HikariDataSource ds) throws SQLException {
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("full", "intent", null, null, null));
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT quote_ident(ic.relname), pg_get_indexdef(i.indexrelid),"
                    + " quote_ident(con.conname), pg_get_constraintdef(con.oid),"
                    + " EXISTS (SELECT 1 FROM pg_constraint fk WHERE fk.contype = 'f' AND fk.conindid = i.indexrelid)"
                    + " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
                    + " LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid"
                    + " WHERE i.indrelid = 'outbox_job'::regclass ORDER BY ic.relname")) {
                while (rs.next()) {
                    String index = rs.getString(1);
                    String constraint = rs.getString(3);
                    String skipped = rs.getBoolean(5) ? "a foreign key depends on it" : null;
                    variants.add(
                            constraint == null
                                    ? new Variant(
                                            "without index " + index,
                                            "index",
                                            "DROP INDEX " + index,
                                            rs.getString(2),
                                            skipped)
                                    : new Variant(
                                            "without index " + index,
                                            "index",
                                            "ALTER TABLE outbox_job DROP CONSTRAINT " + constraint,
                                            "ALTER TABLE outbox_job ADD CONSTRAINT " + constraint + " "
                                                    + rs.getString(4),
                                            skipped));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT quote_ident(tgname), pg_get_triggerdef(oid) FROM pg_trigger"
                    + " WHERE tgrelid = 'outbox_job'::regclass AND NOT tgisinternal ORDER BY tgname")) {
                while (rs.next()) {
                    variants.add(new Variant(
                            "without trigger " + rs.getString(1),
                            "trigger",
                            "DROP TRIGGER " + rs.getString(1) + " ON outbox_job",
                            rs.getString(2),
                            null));
                }
            }
        }
        variants.add(new Variant("second row", "secondRow", null, null, null));
        variants.add(new Variant("bare", "bare", null, null, null));
        return variants;
    }

    /** One round of one variant: returns the commits that completed within it. */
    private static long round(HikariDataSource ds, Outbox outbox, Variant variant, int producers, double seconds)
            throws Exception {
        Fixtures.execute(ds, "TRUNCATE bench_order, outbox_job");
        if (variant.drop() != null) {
            Fixtures.execute(ds, variant.drop());
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
                        try {
                            while (!stop.get()) {
                                long order = Orders.insert(c, base + n);
                                switch (variant.kind()) {
                                    case "secondRow" -> Orders.insert(c, base + n + 1);
                                    case "bare" -> {}
                                    default ->
                                        outbox.enqueue(c, JobRequest.of("order-placed", Map.of("orderId", order)));
                                }
                                c.commit();
                                if (!stop.get()) {
                                    n++; // only commits that returned before the end of the round count
                                }
                            }
                        } catch (SQLException e) {
                            c.rollback();
                            throw e;
                        } finally {
                            c.setAutoCommit(true);
                        }
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
            if (variant.restore() != null) {
                Fixtures.execute(ds, "TRUNCATE bench_order, outbox_job");
                Fixtures.execute(ds, variant.restore());
            }
        }
    }

    static Double median(List<Double> values) {
        if (values == null || values.isEmpty()) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : Env.round((sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2, 1);
    }
}
