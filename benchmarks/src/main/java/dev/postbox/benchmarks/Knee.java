package dev.postbox.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario knee: steady-state runs ({@link SteadyRun}, one engine JVM) at rising rates; the knee is
 * the highest rate whose enqueue-commit to handler-start p99 stays ≤ 50 ms with the producers
 * reaching ≥ 95 % of it. The steps stop after the first rate that misses, unless {@code
 * bench.kneeAllRates=true}.
 */
final class Knee {

    private static final Logger log = LoggerFactory.getLogger(Knee.class);
    static final String NAME = "knee";

    private Knee() {}

    record Settings(List<Integer> rates, int seconds, boolean allRates) {

        static Settings fromSystemProperties() {
            return new Settings(
                    Bench.Sizes.ints(System.getProperty("bench.kneeRates", "1000,2000,3000,4000,5000,6000,8000,10000")),
                    Integer.getInteger("bench.kneeSeconds", 20),
                    Boolean.getBoolean("bench.kneeAllRates"));
        }
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        long t0 = System.nanoTime();
        List<Map<String, Object>> steps = new ArrayList<>();
        Integer knee = null;
        SteadyRun.Outcome atKnee = null;
        long jobs = 0;
        for (int rate : settings.rates()) {
            SteadyRun.Outcome outcome = SteadyRun.run(rate, settings.seconds(), 1);
            Map<String, Object> step = new LinkedHashMap<>();
            step.put("askedRate", rate);
            step.put("achievedRate", outcome.fields().get("achievedRate"));
            step.put("p50Ms", outcome.latency().p50Ms());
            step.put("p99Ms", outcome.latency().p99Ms());
            step.put("notStarted", outcome.latency().notStarted());
            step.put("maxLiveRows", outcome.fields().get("maxLiveRows"));
            step.put("withinKnee", outcome.withinKnee());
            step.put("loadAverage", Env.loadAverage());
            steps.add(step);
            jobs += outcome.latency().measured();
            if (outcome.withinKnee()) {
                knee = rate;
                atKnee = outcome;
            } else if (!settings.allRates()) {
                break;
            }
        }
        Map<String, Object> r = env.result(NAME, jobs, (System.nanoTime() - t0) / 1e9);
        r.put("jobsPerSecond", null); // the rates are per step
        r.put("kneeRate", knee);
        r.put("kneeP99BoundMs", SteadyRun.KNEE_P99_MS);
        r.put("reachedShare", SteadyRun.REACHED_SHARE);
        if (atKnee != null) {
            r.put("p50Ms", atKnee.latency().p50Ms());
            r.put("p99Ms", atKnee.latency().p99Ms());
        }
        r.put("secondsPerStep", settings.seconds());
        r.put("steps", steps);
        r.put("config", Fixtures.describe(Fixtures.engineConfig()));
        r.put(
                "notes",
                "knee (highest rate with p99 ≤ " + (int) SteadyRun.KNEE_P99_MS + " ms and ≥ "
                        + Math.round(SteadyRun.REACHED_SHARE * 100) + " % reached): "
                        + (knee == null ? "none of " + settings.rates() : knee + "/s"));
        log.info("knee: {}", r.get("notes"));
        return r;
    }
}
