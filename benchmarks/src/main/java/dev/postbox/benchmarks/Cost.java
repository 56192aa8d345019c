package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario cost: CPU microseconds per job, from {@code /proc} ({@link CpuMeter}), of the engine JVM
 * and of PostgreSQL, for the floor (its loop runs in the harness JVM), a burn-down by one engine
 * JVM ({@link FleetDrain}) and a steady state ({@link SteadyRun}, one engine JVM, producers in
 * their own JVM), all in one run. PostgreSQL is counted twice: the backends of the measured
 * connections only, and the whole server (which includes background work and, on a shared machine,
 * everyone else).
 */
final class Cost {

    private static final Logger log = LoggerFactory.getLogger(Cost.class);
    static final String NAME = "cost";
    private static final String FLOOR_APPLICATION = "bench-floor";

    private Cost() {}

    record Settings(int jobs, int floorBatch, int rate, int seconds) {

        static Settings fromSystemProperties(int burnJobs, int floorBatch) {
            return new Settings(
                    Integer.getInteger("bench.costJobs", burnJobs),
                    floorBatch,
                    Integer.getInteger("bench.costRate", 2000),
                    Integer.getInteger("bench.costSeconds", 20));
        }
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        long t0 = System.nanoTime();
        Map<String, Object> floorCpu = floor(settings.jobs(), settings.floorBatch());
        Map<String, Object> burn = FleetDrain.run(1, settings.jobs());
        SteadyRun.Outcome steady = SteadyRun.run(settings.rate(), settings.seconds(), 1);
        @SuppressWarnings("unchecked")
        Map<String, Object> burnCpu = (Map<String, Object>) burn.get("cpu");
        @SuppressWarnings("unchecked")
        Map<String, Object> steadyCpu = (Map<String, Object>) steady.fields().get("cpu");

        Map<String, Object> perJob = new LinkedHashMap<>();
        perJob.put("floor", row(floorCpu, "harness", FLOOR_APPLICATION));
        perJob.put("burnDown", row(burnCpu, "engine-1", EngineChild.APPLICATION));
        Map<String, Object> steadyRow = row(steadyCpu, "engine-1", EngineChild.APPLICATION);
        steadyRow.put("producerJvm", perJobOf(steadyCpu, "jvms", "producers"));
        steadyRow.put("producerBackends", perJobOf(steadyCpu, "postgresBackends", ProducerChild.APPLICATION));
        perJob.put("steady", steadyRow);

        Map<String, Object> r =
                env.result(NAME, settings.jobs() * 2L + steady.latency().measured(), (System.nanoTime() - t0) / 1e9);
        r.put("jobsPerSecond", null);
        r.put("microsPerJob", perJob);
        r.put("postgresOnThisHost", floorCpu.get("postgresOnThisHost"));
        r.put("floorCpu", floorCpu);
        r.put("burnDown", burn);
        r.put("steadyRate", settings.rate());
        r.put("steadyAchievedRate", steady.fields().get("achievedRate"));
        r.put("steadyCpu", steadyCpu);
        r.put("config", Fixtures.describe(Fixtures.engineConfig()));
        r.put(
                "notes",
                "CPU µs per job (JVM / PostgreSQL backends / whole server): floor " + describe(perJob.get("floor"))
                        + "; burn-down " + describe(perJob.get("burnDown")) + "; steady " + settings.rate() + "/s "
                        + describe(steadyRow));
        log.info("cost: {}", r.get("notes"));
        return r;
    }

    /** The floor loop in this JVM on a database whose connections are named {@value #FLOOR_APPLICATION}. */
    private static Map<String, Object> floor(int jobs, int batch) throws Exception {
        HikariDataSource ds = Db.create(FLOOR_APPLICATION);
        try {
            Fixtures.insertPending(ds, jobs, "noop");
            try (CpuMeter meter = CpuMeter.start(
                    ds.getJdbcUrl(), Map.of("harness", ProcessHandle.current().pid()), List.of(FLOOR_APPLICATION))) {
                double seconds = Floor.drain(ds, jobs, batch);
                Map<String, Object> cpu = meter.stop(jobs);
                cpu.put("jobsPerSecond", Env.round(jobs / seconds, 1));
                return cpu;
            }
        } finally {
            Db.drop(ds);
        }
    }

    private static Map<String, Object> row(Map<String, Object> cpu, String jvm, String application) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("jvm", perJobOf(cpu, "jvms", jvm));
        row.put("postgresBackends", perJobOf(cpu, "postgresBackends", application));
        row.put("postgresServer", ((Map<?, ?>) cpu.get("postgresServer")).get("microsPerJob"));
        return row;
    }

    private static Object perJobOf(Map<String, Object> cpu, String group, String key) {
        Object usage = ((Map<?, ?>) cpu.get(group)).get(key);
        return usage instanceof Map<?, ?> m ? m.get("microsPerJob") : null;
    }

    private static String describe(Object row) {
        Map<?, ?> m = (Map<?, ?>) row;
        return m.get("jvm") + " / " + m.get("postgresBackends") + " / " + m.get("postgresServer");
    }
}
