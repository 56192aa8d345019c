package dev.postbox.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario knee: steady-state runs ({@link SteadyRun}, one engine JVM) at rising rates, by {@value
 * #DEFAULT_STEP}/s; the knee is the highest rate whose enqueue-commit to handler-start p99 stays ≤
 * 50 ms with the producers reaching ≥ 95 % of it. The steps stop after the first rate that misses,
 * unless {@code bench.kneeAllRates=true}. When {@link FloorSteady} ran before it in the same
 * invocation, it reports its knee beside the floor's, the ratio, and one more step at exactly 80 %
 * of the floor's knee.
 */
final class Knee {

    private static final Logger log = LoggerFactory.getLogger(Knee.class);
    static final String NAME = "knee";
    static final int DEFAULT_STEP = 250;
    /** Target: Postbox's knee ≥ this share of the floor's. */
    static final double RATIO_TO_FLOOR_TARGET = 0.8;
    /** The extra step runs at this share of the floor's knee; its p99 must stay within the bound. */
    static final double FLOOR_SHARE_STEP = 0.8;

    private Knee() {}

    /**
     * The rates to step through: {@code bench.kneeRates} if given, else {@code bench.kneeStep} (250),
     * 2 × that, ... up to {@code bench.kneeMaxRate} (20,000).
     */
    record Settings(List<Integer> rates, int seconds, boolean allRates) {

        static Settings fromSystemProperties() {
            String explicit = System.getProperty("bench.kneeRates");
            return new Settings(
                    explicit != null
                            ? Bench.Sizes.ints(explicit)
                            : stepped(
                                    Integer.getInteger("bench.kneeStep", DEFAULT_STEP),
                                    Integer.getInteger("bench.kneeMaxRate", 20_000)),
                    Integer.getInteger("bench.kneeSeconds", 20),
                    Boolean.getBoolean("bench.kneeAllRates"));
        }

        static List<Integer> stepped(int step, int max) {
            if (step <= 0 || max < step) {
                throw new IllegalArgumentException(
                        "bench.kneeStep must be positive and at most bench.kneeMaxRate; got " + step + " and " + max);
            }
            List<Integer> rates = new ArrayList<>();
            for (int rate = step; rate <= max; rate += step) {
                rates.add(rate);
            }
            return rates;
        }
    }

    /** One steady-state run at a rate (Postbox's or the floor's). */
    @FunctionalInterface
    interface Step {
        SteadyRun.Outcome run(int rate) throws Exception;
    }

    /** The steps of a knee search and what they found. */
    record Search(List<Map<String, Object>> steps, Integer knee, SteadyRun.Outcome atKnee, long jobs) {}

    /** Steps through the rates until the first that misses (all of them with {@code allRates}). */
    static Search search(Settings settings, Step run) throws Exception {
        List<Map<String, Object>> steps = new ArrayList<>();
        Integer knee = null;
        SteadyRun.Outcome atKnee = null;
        long jobs = 0;
        for (int rate : settings.rates()) {
            SteadyRun.Outcome outcome = run.run(rate);
            steps.add(step(rate, outcome));
            jobs += outcome.latency().measured();
            if (outcome.withinKnee()) {
                knee = rate;
                atKnee = outcome;
            } else if (!settings.allRates()) {
                break;
            }
        }
        return new Search(steps, knee, atKnee, jobs);
    }

    static Map<String, Object> step(int rate, SteadyRun.Outcome outcome) {
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("askedRate", rate);
        step.put("achievedRate", outcome.fields().get("achievedRate"));
        step.put("p50Ms", outcome.latency().p50Ms());
        step.put("p99Ms", outcome.latency().p99Ms());
        step.put("notStarted", outcome.latency().notStarted());
        step.put("maxLiveRows", outcome.fields().get("maxLiveRows"));
        step.put("withinKnee", outcome.withinKnee());
        step.put("loadAverage", Env.loadAverage());
        return step;
    }

    /** The common fields of a knee result (Postbox's and the floor's). */
    static Map<String, Object> result(Env env, String name, Settings settings, Search search, long t0) {
        Map<String, Object> r = env.result(name, search.jobs(), (System.nanoTime() - t0) / 1e9);
        r.put("jobsPerSecond", null); // the rates are per step
        r.put("kneeRate", search.knee());
        r.put("kneeP99BoundMs", SteadyRun.KNEE_P99_MS);
        r.put("reachedShare", SteadyRun.REACHED_SHARE);
        if (search.atKnee() != null) {
            r.put("p50Ms", search.atKnee().latency().p50Ms());
            r.put("p99Ms", search.atKnee().latency().p99Ms());
        }
        r.put("secondsPerStep", settings.seconds());
        r.put("steps", search.steps());
        return r;
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        long t0 = System.nanoTime();
        Search search = search(settings, rate -> SteadyRun.run(rate, settings.seconds(), 1));
        Integer knee = search.knee();
        Integer floorKnee = env.floorSteadyKneeRate();
        Map<String, Object> eighty = null;
        long jobs = search.jobs();
        if (floorKnee != null && floorKnee > 0) {
            int rate = (int) Math.round(FLOOR_SHARE_STEP * floorKnee);
            eighty = search.steps().stream()
                    .filter(s -> Integer.valueOf(rate).equals(s.get("askedRate")))
                    .findFirst()
                    .orElse(null);
            if (eighty == null && rate > 0) {
                SteadyRun.Outcome outcome = SteadyRun.run(rate, settings.seconds(), 1);
                eighty = step(rate, outcome);
                jobs += outcome.latency().measured();
            }
        }
        Map<String, Object> r =
                result(env, NAME, settings, new Search(search.steps(), knee, search.atKnee(), jobs), t0);
        r.put("floorKneeRate", floorKnee);
        r.put(
                "kneeRatioToFloor",
                floorKnee == null || floorKnee == 0
                        ? null
                        : Env.round((knee == null ? 0 : knee) / (double) floorKnee, 3));
        r.put("kneeRatioToFloorTarget", RATIO_TO_FLOOR_TARGET);
        r.put("atEightyPercentOfFloorKnee", eighty);
        r.put("config", Fixtures.describe(Fixtures.engineConfig()));
        StringBuilder notes = new StringBuilder("knee (highest rate with p99 ≤ ")
                .append((int) SteadyRun.KNEE_P99_MS)
                .append(" ms and ≥ ")
                .append(Math.round(SteadyRun.REACHED_SHARE * 100))
                .append(" % reached): ")
                .append(knee == null ? "none of " + settings.rates() : knee + "/s");
        if (floorKnee != null) {
            notes.append("; the floor's knee ")
                    .append(floorKnee)
                    .append("/s, ratio ")
                    .append(r.get("kneeRatioToFloor"));
        }
        if (eighty != null) {
            notes.append("; p99 at ")
                    .append(eighty.get("askedRate"))
                    .append("/s (80 % of the floor's knee) ")
                    .append(eighty.get("p99Ms"))
                    .append(" ms");
        }
        r.put("notes", notes.toString());
        log.info("knee: {}", r.get("notes"));
        return r;
    }
}
