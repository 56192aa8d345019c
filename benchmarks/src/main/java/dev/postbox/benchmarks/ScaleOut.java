package dev.postbox.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario scale-out: 1, 2 and 3 engine JVMs on one database. For each count, a burn-down ({@link
 * FleetDrain}: pre-inserted no-op jobs, clock from go to the last completion) and a steady state
 * ({@link SteadyRun} at {@code bench.scaleOutRate}); the result has the drain rates, the p99s and
 * the ratio of two engines' drain rate to one's (the target: ≥ 1.3).
 */
final class ScaleOut {

    private static final Logger log = LoggerFactory.getLogger(ScaleOut.class);
    static final String NAME = "scale-out";
    static final double TWO_TO_ONE_TARGET = 1.3;

    private ScaleOut() {}

    record Settings(List<Integer> engines, int jobs, int rate, int seconds) {

        static Settings fromSystemProperties(int burnJobs) {
            return new Settings(
                    Bench.Sizes.ints(System.getProperty("bench.scaleOutEngines", "1,2,3")),
                    Integer.getInteger("bench.scaleOutJobs", burnJobs),
                    Integer.getInteger("bench.scaleOutRate", 2000),
                    Integer.getInteger("bench.scaleOutSeconds", 20));
        }
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        long t0 = System.nanoTime();
        List<Map<String, Object>> levels = new ArrayList<>();
        Map<Integer, Double> drainRates = new LinkedHashMap<>();
        for (int engines : settings.engines()) {
            Map<String, Object> drain = FleetDrain.run(engines, settings.jobs());
            SteadyRun.Outcome steady = SteadyRun.run(settings.rate(), settings.seconds(), engines);
            Map<String, Object> level = new LinkedHashMap<>();
            level.put("engines", engines);
            level.put("drainJobsPerSecond", drain.get("jobsPerSecond"));
            level.put("drainSeconds", drain.get("seconds"));
            level.put("drainCompleted", drain.get("completed"));
            level.put("drainCompletedPerEngine", drain.get("completedPerEngine"));
            level.put("steadyAskedRate", settings.rate());
            level.put("steadyAchievedRate", steady.fields().get("achievedRate"));
            level.put("steadyP50Ms", steady.latency().p50Ms());
            level.put("steadyP99Ms", steady.latency().p99Ms());
            level.put("steadyNotStarted", steady.latency().notStarted());
            level.put("steadyCompletedPerEngine", steady.fields().get("completedPerEngine"));
            level.put("drainCpu", drain.get("cpu"));
            level.put("steadyCpu", steady.fields().get("cpu"));
            level.put("loadAverage", Env.loadAverage());
            levels.add(level);
            if (drain.get("jobsPerSecond") instanceof Double rate) {
                drainRates.put(engines, rate);
            }
        }
        Map<String, Object> r =
                env.result(NAME, (long) settings.jobs() * settings.engines().size(), (System.nanoTime() - t0) / 1e9);
        r.put("jobsPerSecond", drainRates.get(1));
        Double twoToOne = drainRates.containsKey(1) && drainRates.containsKey(2)
                ? Env.round(drainRates.get(2) / drainRates.get(1), 3)
                : null;
        r.put("drainRatioTwoToOne", twoToOne);
        r.put(
                "drainRatioThreeToOne",
                drainRates.containsKey(1) && drainRates.containsKey(3)
                        ? Env.round(drainRates.get(3) / drainRates.get(1), 3)
                        : null);
        r.put("twoToOneTarget", TWO_TO_ONE_TARGET);
        r.put(
                "settings",
                Map.of(
                        "engines", settings.engines(),
                        "drainJobs", settings.jobs(),
                        "steadyRate", settings.rate(),
                        "steadySeconds", settings.seconds()));
        r.put("levels", levels);
        r.put("config", Fixtures.describe(Fixtures.engineConfig()));
        StringBuilder notes =
                new StringBuilder("drain jobs/s and steady " + settings.rate() + "/s p99 by engine JVMs:");
        for (Map<String, Object> level : levels) {
            notes.append(' ')
                    .append(level.get("engines"))
                    .append(": ")
                    .append(level.get("drainJobsPerSecond"))
                    .append(", ")
                    .append(level.get("steadyP99Ms"))
                    .append(" ms;");
        }
        notes.append(" 2/1 = ").append(twoToOne);
        r.put("notes", notes.toString());
        log.info("scale-out: {}", notes);
        return r;
    }
}
