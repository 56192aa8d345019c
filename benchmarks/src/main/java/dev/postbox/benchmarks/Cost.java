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
 * everyone else). The steady state is measured for the floor too ({@link SteadyRun#runFloor}: the
 * same producers writing bare rows, a minimal LISTEN/SKIP LOCKED consumer), and the relay's CPU per
 * job (engine JVM plus its backends) is set against the floor's in both: {@code ratios}, with the
 * target of ≤ {@value #BURN_DOWN_RATIO_TARGET}× in burn-down.
 */
final class Cost {

    private static final Logger log = LoggerFactory.getLogger(Cost.class);
    static final String NAME = "cost";
    private static final String FLOOR_APPLICATION = "bench-floor";
    /** Target: engine JVM + its PostgreSQL backends per job ≤ this multiple of the floor's, in burn-down. */
    static final double BURN_DOWN_RATIO_TARGET = 1.3;

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
        SteadyRun.Outcome floorSteady = SteadyRun.runFloor(settings.rate(), settings.seconds());
        @SuppressWarnings("unchecked")
        Map<String, Object> floorSteadyCpu =
                (Map<String, Object>) floorSteady.fields().get("cpu");
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
        Map<String, Object> floorSteadyRow = row(floorSteadyCpu, FloorConsumer.LABEL, FloorConsumerChild.APPLICATION);
        floorSteadyRow.put("producerJvm", perJobOf(floorSteadyCpu, "jvms", "producers"));
        floorSteadyRow.put("producerBackends", perJobOf(floorSteadyCpu, "postgresBackends", ProducerChild.APPLICATION));
        perJob.put("floorSteady", floorSteadyRow);

        Map<String, Object> ratios = new LinkedHashMap<>();
        ratios.put("burnDownToFloor", ratio(perJob.get("burnDown"), perJob.get("floor"), false));
        ratios.put("steadyToFloorSteady", ratio(steadyRow, floorSteadyRow, false));
        ratios.put("steadyToFloorSteadyWithProducers", ratio(steadyRow, floorSteadyRow, true));
        ratios.put("burnDownTarget", BURN_DOWN_RATIO_TARGET);
        ratios.put(
                "meaning",
                "(JVM + its PostgreSQL backends) CPU per job of Postbox ÷ the floor's; WithProducers adds the"
                        + " producer JVM and its backends on both sides");

        Map<String, Object> r = env.result(
                NAME,
                settings.jobs() * 2L
                        + steady.latency().measured()
                        + floorSteady.latency().measured(),
                (System.nanoTime() - t0) / 1e9);
        r.put("jobsPerSecond", null);
        r.put("microsPerJob", perJob);
        r.put("ratios", ratios);
        r.put("postgresOnThisHost", floorCpu.get("postgresOnThisHost"));
        r.put("floorCpu", floorCpu);
        r.put("burnDown", burn);
        r.put("steadyRate", settings.rate());
        r.put("steadyAchievedRate", steady.fields().get("achievedRate"));
        r.put("steadyCpu", steadyCpu);
        r.put("floorSteadyAchievedRate", floorSteady.fields().get("achievedRate"));
        r.put("floorSteadyCpu", floorSteadyCpu);
        r.put("config", Fixtures.describe(Fixtures.engineConfig()));
        r.put(
                "notes",
                "CPU µs per job (JVM / PostgreSQL backends / whole server): floor " + describe(perJob.get("floor"))
                        + "; burn-down " + describe(perJob.get("burnDown")) + "; steady " + settings.rate() + "/s "
                        + describe(steadyRow) + " (floor " + describe(floorSteadyRow) + "); Postbox ÷ floor (JVM +"
                        + " backends): burn-down " + ratios.get("burnDownToFloor") + "×, steady "
                        + ratios.get("steadyToFloorSteady") + "×");
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

    /** (jvm + postgresBackends [+ producers]) of {@code postbox} ÷ the same of {@code floor}; null if unknown. */
    static Double ratio(Object postbox, Object floor, boolean withProducers) {
        Double p = sum((Map<?, ?>) postbox, withProducers);
        Double f = sum((Map<?, ?>) floor, withProducers);
        return p == null || f == null || f == 0 ? null : Env.round(p / f, 3);
    }

    private static Double sum(Map<?, ?> row, boolean withProducers) {
        List<String> keys = withProducers
                ? List.of("jvm", "postgresBackends", "producerJvm", "producerBackends")
                : List.of("jvm", "postgresBackends");
        double total = 0;
        for (String key : keys) {
            if (!(row.get(key) instanceof Number n)) {
                return null;
            }
            total += n.doubleValue();
        }
        return total;
    }

    private static String describe(Object row) {
        Map<?, ?> m = (Map<?, ?>) row;
        return m.get("jvm") + " / " + m.get("postgresBackends") + " / " + m.get("postgresServer");
    }
}
