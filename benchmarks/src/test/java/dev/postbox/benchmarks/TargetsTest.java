package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The summary's verdicts for the issue-15 scenarios, from result maps shaped like their JSON files. */
class TargetsTest {

    @Test
    void judgesTheNewScenariosAgainstTheIssuesTargets() {
        Map<String, Map<String, Object>> all = new TreeMap<>();
        all.put(
                "steady-state-2000",
                Map.of("askedRate", 2000, "achievedRate", 1800.0, "achievedShare", 0.9, "p50Ms", 3.0, "p99Ms", 40.0));
        all.put(Knee.NAME, Map.of("kneeRate", 6000));
        all.put(ScaleOut.NAME, Map.of("drainRatioTwoToOne", 1.2, "drainRatioThreeToOne", 1.4, "notes", "n"));
        all.put(
                HttpFloor.NAME,
                Map.of("ratioToHttpFloor", 0.7, "jobsPerSecond", 7000.0, "httpFloorPerSecond", 10000.0));
        all.put(
                BacklogDepth.NAME,
                Map.of("drainRatioDeepestToNext", 0.79, "deepest", 1_000_000, "nextDeepest", 100_000, "notes", "n"));

        List<String> lines = Targets.check(all);

        assertThat(lines)
                .anyMatch(l -> l.startsWith("MISSED: steady 2000/s: producers reach ≥ 95 %"))
                .anyMatch(l -> l.startsWith("MET: steady 2000/s enqueue-to-start p50 ≤ 5 ms"))
                .anyMatch(l -> l.startsWith("MET: steady 2000/s enqueue-to-start p99 ≤ 50 ms"))
                .anyMatch(l -> l.startsWith("MET: knee") && l.contains("6,000/s"))
                .anyMatch(l -> l.startsWith("MISSED: scale-out: two engine processes ≥ 1.3× one"))
                .anyMatch(l -> l.startsWith("MET: http ≥ 0.6× the bare OkHttp floor"))
                .anyMatch(l -> l.startsWith("MISSED: backlog depth: drain rate with 1000000 pending ≥ 0.8×"));
    }

    @Test
    void judgesTheKneeAgainstTheFloorsKneeTheCpuRatioAndReportsInsertCostAndTheClaimPlan() {
        Map<String, Map<String, Object>> all = new TreeMap<>();
        all.put(FloorSteady.NAME, Map.of("kneeRate", 2500, "p99Ms", 30.0));
        all.put(
                Knee.NAME,
                Map.of(
                        "kneeRate",
                        2000,
                        "floorKneeRate",
                        2500,
                        "kneeRatioToFloor",
                        0.8,
                        "atEightyPercentOfFloorKnee",
                        Map.of("askedRate", 2000, "achievedRate", 1990.0, "p99Ms", 61.0)));
        all.put(Cost.NAME, Map.of("notes", "n", "ratios", Map.of("burnDownToFloor", 1.42, "steadyToFloorSteady", 2.0)));
        all.put(InsertCost.NAME, Map.of("notes", "full 900 (0.0);"));
        all.put("burn-down", Map.of("jobsPerSecond", 30_000.0, "claimPlanUsesIndex", true));

        List<String> lines = Targets.check(all);

        assertThat(lines)
                .anyMatch(l -> l.startsWith("floor-steady (no target") && l.contains("2,500/s"))
                .anyMatch(l -> l.startsWith("MET: knee ≥ 0.8× the floor's knee: 0.800×"))
                .anyMatch(
                        l -> l.startsWith("MISSED: knee: p99 ≤ 50 ms at 80 % of the floor's knee") && l.contains("61"))
                .anyMatch(l -> l.startsWith("MISSED: cost: engine JVM + PostgreSQL backends CPU per job in burn-down"))
                .anyMatch(l -> l.startsWith("insert-cost (reported): full 900"))
                .anyMatch(l -> l.startsWith("MET: burn-down claim EXPLAIN"));
    }

    @Test
    void aKneeSearchWithoutAnyRateWithinTheBoundIsMissed() {
        Map<String, Object> knee = new HashMap<>();
        knee.put("kneeRate", null);

        List<String> lines = Targets.check(Map.of(Knee.NAME, knee));

        assertThat(lines)
                .containsExactly(
                        "MISSED: knee (highest rate with p99 ≤ 50 ms, ≥ 95 % reached) ≥ 5,000/s: none of the steps",
                        "knee ≥ 0.8× the floor's knee: n/a (run floor-steady with knee)");
    }
}
