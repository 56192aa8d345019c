package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One steady-state run: producers in their own JVM ({@link ProducerChild}) commit at a fixed rate
 * while {@code engines} engine JVMs ({@link EngineChild}) relay, on a fresh database. Measures the
 * achieved rate beside the asked one, enqueue-commit to handler-start latency after a warm-up, the
 * live rows every second, and the CPU of every JVM and of the producers' and engines' backends.
 */
final class SteadyRun {

    private static final Logger log = LoggerFactory.getLogger(SteadyRun.class);
    static final int WARMUP_SECONDS = 3;
    /** The latency bound for the knee: p99 of enqueue-commit to handler start. */
    static final double KNEE_P99_MS = 50;
    /** A rate counts as reached when the producers achieved this share of it. */
    static final double REACHED_SHARE = 0.95;

    private SteadyRun() {}

    /** Whoever relays the producers' jobs: Postbox engine JVMs or the floor's consumer. */
    interface Consumers extends AutoCloseable {
        /** {@code label -> pid} for {@link CpuMeter}. */
        Map<String, Long> pids();

        void go() throws IOException;

        List<Map<String, Object>> stop() throws Exception;

        /** Handler start stamps by sequence number. */
        long[] startStamps() throws IOException;

        List<Long> completedPerEngine();

        @Override
        void close() throws IOException;
    }

    record Outcome(StartLatency latency, Map<String, Object> fields) {

        /** p99 ≤ 50 ms and the producers reached ≥ 95 % of the asked rate. */
        boolean withinKnee() {
            return Boolean.TRUE.equals(fields.get("withinKnee"));
        }

        /** The scenario's result file: jobs are the measured commits, seconds their window. */
        Map<String, Object> toResult(Env env, String scenario) {
            Map<String, Object> r = env.result(scenario, latency.measured(), latency.window());
            latency.putInto(r);
            r.putAll(fields);
            return r;
        }
    }

    /** Producer connections: {@code bench.producerConnections}, else one per 100 commits/s within 4..48. */
    static int producerConnections(int rate) {
        return Integer.getInteger("bench.producerConnections", Math.max(4, Math.min(48, (rate + 99) / 100)));
    }

    /** Postbox: producers enqueue intents, {@code engines} engine JVMs relay them. */
    static Outcome run(int rate, int seconds, int engines) throws Exception {
        return run(rate, seconds, engines, false);
    }

    /**
     * The floor (scenario floor-steady): the same producer JVM writes bare rows ({@link FloorQueue}),
     * one {@link FloorConsumerChild} claims and deletes them; measured the same way.
     */
    static Outcome runFloor(int rate, int seconds) throws Exception {
        return run(rate, seconds, 1, true);
    }

    private static Outcome run(int rate, int seconds, int engines, boolean floor) throws Exception {
        HikariDataSource ds = floor ? Db.createEmpty() : Db.create();
        String table = floor ? FloorQueue.TABLE : "outbox_job";
        Path directory = Files.createTempDirectory("postbox-bench-steady");
        Path commits = directory.resolve("commits.stamps");
        int connections = producerConnections(rate);
        int total = rate * (WARMUP_SECONDS + seconds);
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try {
            Orders.createTable(ds);
            if (floor) {
                FloorQueue.createTable(ds);
            }
            try (Consumers fleet = floor
                            ? FloorConsumer.start(ds.getJdbcUrl(), total)
                            : EngineFleet.start(ds.getJdbcUrl(), engines, total);
                    ChildJvm producer = ChildJvm.start(
                            "producers",
                            ProducerChild.class,
                            List.of(),
                            List.of(
                                    ds.getJdbcUrl(),
                                    Integer.toString(rate),
                                    Integer.toString(WARMUP_SECONDS),
                                    Integer.toString(seconds),
                                    Integer.toString(connections),
                                    commits.toString(),
                                    floor ? ProducerChild.BARE : ProducerChild.POSTBOX))) {
                producer.awaitReady(Duration.ofMinutes(2));
                Map<String, Long> jvms = new LinkedHashMap<>(fleet.pids());
                jvms.put("producers", producer.pid());
                Map<String, Object> cpu;
                List<Map<String, Object>> samples = new ArrayList<>();
                double drainAfterProducers;
                Map<String, Object> produced;
                String consumerApplication = floor ? FloorConsumerChild.APPLICATION : EngineChild.APPLICATION;
                try (CpuMeter meter = CpuMeter.start(
                        ds.getJdbcUrl(), jvms, List.of(consumerApplication, ProducerChild.APPLICATION))) {
                    long t0 = System.nanoTime();
                    fleet.go();
                    producer.send("go");
                    sampler.scheduleAtFixedRate(() -> sample(ds, table, t0, samples), 1, 1, TimeUnit.SECONDS);
                    produced = producer.awaitResult(Duration.ofSeconds(WARMUP_SECONDS + seconds + 180L));
                    long producersDone = System.nanoTime();
                    boolean drained = FleetDrain.awaitEmpty(ds, table, TimeUnit.SECONDS.toNanos(120));
                    drainAfterProducers = drained ? (System.nanoTime() - producersDone) / 1e9 : -1;
                    sampler.shutdown();
                    cpu = meter.stop(Fixtures.count(ds, "SELECT count(*) FROM bench_order"));
                }
                producer.send("stop");
                fleet.stop();
                if (produced.get("failure") != null) {
                    throw new IllegalStateException("steady-state producers failed: " + produced.get("failure"));
                }
                long warmupEnd = ((Number) produced.get("warmupEndNanos")).longValue();
                StartLatency latency = StartLatency.of(TimeStamps.read(commits), fleet.startStamps(), warmupEnd);
                Map<String, Object> f = new LinkedHashMap<>();
                double achieved = latency.achievedRate();
                f.put("askedRate", rate);
                f.put("achievedRate", Env.round(achieved, 1));
                f.put("achievedShare", Env.round(achieved / rate, 3));
                f.put("engines", floor ? 0 : engines);
                f.put("relay", floor ? "floor: bare rows, one LISTEN + FOR UPDATE SKIP LOCKED consumer" : "postbox");
                f.put("producerConnections", connections);
                f.put("businessTxP50Ms", produced.get("businessTxP50Ms"));
                f.put("businessTxP99Ms", produced.get("businessTxP99Ms"));
                f.put("drainAfterProducersSeconds", Env.round(drainAfterProducers, 3));
                long maxLive = 0;
                synchronized (samples) {
                    for (Map<String, Object> s : samples) {
                        maxLive = Math.max(maxLive, ((Number) s.get("liveRows")).longValue());
                    }
                    f.put("liveRowSamples", new ArrayList<>(samples));
                }
                f.put("maxLiveRows", maxLive);
                f.put("completedPerEngine", fleet.completedPerEngine());
                f.put(
                        "withinKnee",
                        latency.p99Ms() <= KNEE_P99_MS
                                && achieved >= REACHED_SHARE * rate
                                && latency.notStarted() == 0);
                f.put("cpu", cpu);
                if (!floor) {
                    f.put("config", Fixtures.describe(Fixtures.engineConfig()));
                }
                f.put(
                        "notes",
                        "asked " + rate + "/s, achieved " + Math.round(achieved) + "/s; " + seconds + " s after "
                                + WARMUP_SECONDS + " s warm-up; producers in their own JVM (" + connections
                                + " connections), "
                                + (floor ? "the floor's consumer JVM" : engines + " engine JVM(s)"));
                log.info(
                        "steady {}/s with {}: achieved {}/s, p50 {} ms, p99 {} ms, max live rows {}",
                        rate,
                        floor ? "the floor's consumer" : engines + " engine JVM(s)",
                        f.get("achievedRate"),
                        latency.p50Ms(),
                        latency.p99Ms(),
                        maxLive);
                return new Outcome(latency, f);
            }
        } finally {
            sampler.shutdownNow();
            Files.deleteIfExists(commits);
            Files.deleteIfExists(directory);
            Db.drop(ds);
        }
    }

    private static void sample(HikariDataSource ds, String table, long t0, List<Map<String, Object>> samples) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("t", Env.round((System.nanoTime() - t0) / 1e9, 1));
        try {
            s.put("liveRows", Fixtures.count(ds, "SELECT count(*) FROM " + table));
        } catch (Exception e) {
            return; // a sample is not worth failing the run
        }
        synchronized (samples) {
            samples.add(s);
        }
    }
}
