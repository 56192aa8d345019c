package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 4: business transactions (one order row plus one intent) at a fixed rate while one
 * engine relays. Latency is from the return of the enqueueing transaction's commit to the first
 * instruction of the handler (same JVM, {@code System.nanoTime}). The first seconds are warm-up and
 * not recorded. Backlog (committed but not started) is sampled every second.
 */
final class SteadyState {

    private static final Logger log = LoggerFactory.getLogger(SteadyState.class);
    private static final int WARMUP_SECONDS = 3;

    private SteadyState() {}

    static List<Map<String, Object>> run(Env env, List<Integer> rates, int seconds) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        for (int rate : rates) {
            results.add(run(env, rate, seconds));
        }
        return results;
    }

    static Map<String, Object> run(Env env, int rate, int seconds) throws Exception {
        PostboxConfig config = Fixtures.engineConfig();
        HikariDataSource ds = Db.create();
        try {
            Orders.createTable(ds);
            int warmup = rate * WARMUP_SECONDS;
            int total = warmup + rate * seconds;
            long[] committedAt = new long[total];
            long[] startedAt = new long[total];
            AtomicLong started = new AtomicLong();
            AtomicLong committed = new AtomicLong();
            Postbox postbox = Postbox.builder(ds)
                    .config(config)
                    .handler("order-placed", job -> {
                        long now = System.nanoTime();
                        startedAt[seq(job.payloadJson())] = now;
                        started.incrementAndGet();
                    })
                    .build();
            postbox.start();
            Outbox outbox = postbox.outbox();
            int producers = Math.max(4, Math.min(24, rate / 250));
            AtomicInteger next = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Histogram txMicros = new SynchronizedHistogram(60_000_000L, 3);
            long t0 = System.nanoTime() + 200_000_000L;
            double intervalNanos = 1e9 / rate;
            long warmupEnd = t0 + TimeUnit.SECONDS.toNanos(WARMUP_SECONDS);
            long stopAt = t0 + TimeUnit.SECONDS.toNanos(WARMUP_SECONDS + seconds + 2);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread t = new Thread(
                        () -> {
                            try (Connection c = ds.getConnection()) {
                                c.setAutoCommit(false);
                                while (failure.get() == null) {
                                    int seq = next.getAndIncrement();
                                    if (seq >= total || System.nanoTime() > stopAt) {
                                        return; // a rate the producers cannot reach ends on time, not on count
                                    }
                                    long target = t0 + (long) (seq * intervalNanos);
                                    long wait;
                                    while ((wait = target - System.nanoTime()) > 0) {
                                        LockSupport.parkNanos(wait);
                                    }
                                    long begin = System.nanoTime();
                                    long order = Orders.insert(c, seq);
                                    outbox.enqueue(
                                            c, JobRequest.of("order-placed", Map.of("seq", seq, "orderId", order)));
                                    c.commit();
                                    long end = System.nanoTime();
                                    committedAt[seq] = end;
                                    committed.incrementAndGet();
                                    if (end >= warmupEnd) {
                                        txMicros.recordValue((end - begin) / 1000);
                                    }
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "producer-" + p);
                threads.add(t);
            }
            List<Map<String, Object>> samples = new ArrayList<>();
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            sampler.scheduleAtFixedRate(
                    () -> {
                        Map<String, Object> s = new LinkedHashMap<>();
                        s.put("t", Env.round((System.nanoTime() - t0) / 1e9, 1));
                        long c = committed.get();
                        long st = started.get();
                        s.put("committed", c);
                        s.put("started", st);
                        s.put("backlog", Math.max(0, c - st));
                        try {
                            s.put("liveRows", Fixtures.count(ds, "SELECT count(*) FROM outbox_job"));
                        } catch (Exception e) {
                            s.put("liveRows", null);
                        }
                        synchronized (samples) {
                            samples.add(s);
                        }
                    },
                    1,
                    1,
                    TimeUnit.SECONDS);
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            long producersDone = System.nanoTime();
            if (failure.get() != null) {
                throw new IllegalStateException("steady-state producer failed", failure.get());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int produced = Math.min(total, next.get());
            while (started.get() < committed.get() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            double drainAfterProducers = (System.nanoTime() - producersDone) / 1e9;
            Thread.sleep(1100);
            sampler.shutdown();
            postbox.stop();

            Histogram latencyMicros = new Histogram(3_600_000_000L, 3);
            long notStarted = 0;
            long startedBeforeCommitReturned = 0;
            long firstCommit = Long.MAX_VALUE;
            long lastCommit = 0;
            for (int seq = 0; seq < produced; seq++) {
                if (committedAt[seq] == 0 || committedAt[seq] < warmupEnd) {
                    continue; // warm-up, or taken after the stop time and never committed
                }
                firstCommit = Math.min(firstCommit, committedAt[seq]);
                lastCommit = Math.max(lastCommit, committedAt[seq]);
                if (startedAt[seq] == 0) {
                    notStarted++;
                    continue;
                }
                long d = startedAt[seq] - committedAt[seq];
                if (d < 0) {
                    startedBeforeCommitReturned++;
                    d = 0;
                }
                latencyMicros.recordValue(d / 1000);
            }
            long measured = latencyMicros.getTotalCount() + notStarted;
            double window = measured == 0 ? 0 : (lastCommit - firstCommit) / 1e9;
            Map<String, Object> r = env.result("steady-state-" + rate, measured, window);
            r.put("targetRate", rate);
            r.put("p50Ms", ms(latencyMicros, 50));
            r.put("p99Ms", ms(latencyMicros, 99));
            r.put("p999Ms", ms(latencyMicros, 99.9));
            r.put("maxMs", Env.round(latencyMicros.getMaxValue() / 1000.0, 3));
            r.put("latency", "commit returned -> handler start");
            r.put("businessTxP50Ms", ms(txMicros, 50));
            r.put("businessTxP99Ms", ms(txMicros, 99));
            r.put("producers", producers);
            r.put("notStarted", notStarted);
            r.put("startedBeforeCommitReturned", startedBeforeCommitReturned);
            long maxBacklog = 0;
            synchronized (samples) {
                for (Map<String, Object> s : samples) {
                    maxBacklog = Math.max(maxBacklog, (Long) s.get("backlog"));
                }
                r.put("backlogSamples", new ArrayList<>(samples));
            }
            long backlogAtEnd = committed.get() - started.get();
            r.put("maxBacklog", maxBacklog);
            r.put("backlogAtEnd", backlogAtEnd);
            r.put("drainAfterProducersSeconds", Env.round(drainAfterProducers, 3));
            // Bounded: never more than one second of work waiting, and all of it started soon after.
            r.put("backlogBounded", notStarted == 0 && maxBacklog <= rate && drainAfterProducers < 5);
            r.put("config", Fixtures.describe(config));
            r.put(
                    "notes",
                    "target " + rate + "/s for " + seconds + " s after " + WARMUP_SECONDS + " s warm-up, " + producers
                            + " producer connections; latency = commit returned to handler start");
            log.info(
                    "steady {}/s: achieved {}/s, p50 {} ms, p99 {} ms, p99.9 {} ms, max backlog {}",
                    rate,
                    r.get("jobsPerSecond"),
                    r.get("p50Ms"),
                    r.get("p99Ms"),
                    r.get("p999Ms"),
                    maxBacklog);
            return r;
        } finally {
            Db.drop(ds);
        }
    }

    static double ms(Histogram h, double percentile) {
        return Env.round(h.getValueAtPercentile(percentile) / 1000.0, 3);
    }

    /** Reads {@code "seq":N} from the payload without a JSON parser. */
    static int seq(String json) {
        int i = json.indexOf("\"seq\"");
        i = json.indexOf(':', i) + 1;
        while (json.charAt(i) == ' ') {
            i++;
        }
        int n = 0;
        while (i < json.length() && Character.isDigit(json.charAt(i))) {
            n = n * 10 + (json.charAt(i++) - '0');
        }
        return n;
    }
}
