package dev.postbox.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The targets, checked against the measured results (never against constants of ours). */
final class Targets {

    private Targets() {}

    static List<String> check(Map<String, Map<String, Object>> all) {
        List<String> lines = new ArrayList<>();
        Map<String, Object> burn = all.get("burn-down");
        if (burn != null) {
            Double jps = num(burn.get("jobsPerSecond"));
            lines.add(verdict(jps != null && jps >= 25_000, "burn-down ≥ 25,000 jobs/s: " + fmt(jps) + " jobs/s"));
            Double peer = num(burn.get("ratioToPeer"));
            lines.add(verdict(peer != null && peer >= 3.0, "burn-down ≥ 3.0× db-scheduler: " + fmt(peer) + "×"));
            Double floor = num(burn.get("ratioToFloor"));
            lines.add(
                    floor == null
                            ? "burn-down / floor: n/a (run floor in the same run)"
                            : verdict(
                                    floor >= 0.85,
                                    "burn-down ≥ 0.85× the floor (issue 15): " + fmt(floor) + "× (floor "
                                            + fmt(num(burn.get("floorJobsPerSecond"))) + " jobs/s)"));
            if (peer != null) {
                lines.add(verdict(peer >= 5.0, "burn-down ≥ 5× db-scheduler (issue 15): " + fmt(peer) + "×"));
            }
            if (burn.get("claimPlanUsesIndex") instanceof Boolean index) {
                lines.add(verdict(
                        index,
                        "burn-down claim EXPLAIN (ANALYZE, BUFFERS) on the full backlog uses the partial claim index"
                                + " (plan in burn-down.json, claimExplain): " + index));
            }
        }
        for (Map.Entry<String, Map<String, Object>> e : all.entrySet()) {
            if (e.getKey().startsWith("steady-state-")) {
                steady(lines, e.getValue());
            }
        }
        floorSteady(lines, all.get(FloorSteady.NAME));
        knee(lines, all.get(Knee.NAME));
        scaleOut(lines, all.get(ScaleOut.NAME));
        cost(lines, all.get(Cost.NAME));
        backlogDepth(lines, all.get(BacklogDepth.NAME));
        Map<String, Object> overhead = all.get("enqueue-overhead");
        if (overhead != null) {
            Double delta = num(overhead.get("p50DeltaMs"));
            lines.add(verdict(delta != null && delta <= 0.3, "enqueue overhead p50 ≤ +0.3 ms: +" + fmt(delta) + " ms"));
        }
        Map<String, Object> concurrent = all.get(ConcurrentEnqueue.NAME);
        if (concurrent != null && concurrent.get("levels") instanceof List<?> levels) {
            for (Object o : levels) {
                if (o instanceof Map<?, ?> level) {
                    Double ratio = num(level.get("intentRatio"));
                    lines.add(verdict(
                            ratio != null && ratio >= 0.8,
                            "concurrent enqueue, " + level.get("producers")
                                    + " producers: commits with one intent ≥ 0.8×"
                                    + " without: " + fmt(ratio) + "× (" + fmt(num(level.get("intentCommitsPerSecond")))
                                    + " vs " + fmt(num(level.get("bareCommitsPerSecond"))) + " commits/s; with the old"
                                    + " trigger " + fmt(num(level.get("triggerRatio"))) + "×; any second row in the"
                                    + " transaction " + fmt(num(level.get("secondRowRatio")))
                                    + "×, intent ÷ second row "
                                    + fmt(num(level.get("intentToSecondRowRatio"))) + "×)"));
                }
            }
        }
        insertCost(lines, all.get(InsertCost.NAME));
        Map<String, Object> http = all.get("http");
        if (http != null) {
            Double jps = num(http.get("jobsPerSecond"));
            lines.add(
                    jps == null
                            ? "MISSED: http ≥ 5,000 deliveries/s: " + http.get("notes")
                            : verdict(jps >= 5_000, "http ≥ 5,000 deliveries/s: " + fmt(jps)));
        }
        Map<String, Object> httpFloor = all.get(HttpFloor.NAME);
        if (httpFloor != null) {
            Double ratio = num(httpFloor.get("ratioToHttpFloor"));
            lines.add(verdict(
                    ratio != null && ratio >= HttpFloor.RATIO_TARGET,
                    "http ≥ " + HttpFloor.RATIO_TARGET + "× the bare OkHttp floor (receiver in its own JVM): "
                            + fmt(ratio) + "× (" + fmt(num(httpFloor.get("jobsPerSecond"))) + " vs "
                            + fmt(num(httpFloor.get("httpFloorPerSecond"))) + " deliveries/s)"));
        }
        Map<String, Object> kafka = all.get(KafkaRelayBench.NAME);
        if (kafka != null) {
            Double mps = num(kafka.get("messagesPerSecond"));
            lines.add(
                    mps == null
                            ? "MISSED: kafka relay ≥ 20,000 messages/s: " + kafka.get("notes")
                            : verdict(
                                    mps >= 20_000,
                                    "kafka relay ≥ 20,000 messages/s: " + fmt(mps) + " (bare producer "
                                            + fmt(num(kafka.get("producerFloorMessagesPerSecond"))) + ", ratio "
                                            + fmt(num(kafka.get("ratioToProducerFloor"))) + "×; "
                                            + kafka.get("broker") + ")"));
        }
        for (String relay : List.of(AmqpRelayBench.NAME, NatsRelayBench.NAME)) {
            Map<String, Object> r = all.get(relay);
            if (r != null) {
                lines.add(relay + ": " + fmt(num(r.get("messagesPerSecond"))) + " messages/s, bare client "
                        + fmt(num(r.get("clientFloorMessagesPerSecond"))) + " (ratio "
                        + fmt(num(r.get("ratioToClientFloor"))) + "×; " + r.get("broker") + ")");
            }
        }
        Map<String, Object> history = all.get("history-growth");
        if (history != null) {
            Double ratio = num(history.get("p50RatioLargestToSmallest"));
            lines.add(verdict(
                    ratio != null && ratio <= 1.5 && Boolean.TRUE.equals(history.get("allPlansUseClaimIndex")),
                    "history growth claim p50 at " + history.get("largestHistory") + " ≤ 1.5× at "
                            + history.get("smallestHistory") + ": " + fmt(ratio) + "×; plans on the partial index: "
                            + history.get("allPlansUseClaimIndex")));
            if (!Long.valueOf(10_000_000L).equals(longOf(history.get("largestHistory")))) {
                lines.add("history growth: the 10M case was not part of this run (-Dbench.history10m=true)");
            }
        }
        Map<String, Object> memory = all.get("memory");
        if (memory != null) {
            lines.add(verdict(
                    Boolean.TRUE.equals(memory.get("completed")),
                    "memory: " + memory.get("jobs") + " jobs drained under -Xmx" + memory.get("childHeap") + ": "
                            + memory.get("completed") + ", peak heap used "
                            + fmt(num(memory.get("peakHeapUsedMiB"))) + " MiB"));
        }
        return lines;
    }

    private static void steady(List<String> lines, Map<String, Object> steady) {
        Object rate = steady.get("askedRate") != null ? steady.get("askedRate") : steady.get("targetRate");
        Double p50 = num(steady.get("p50Ms"));
        Double p99 = num(steady.get("p99Ms"));
        Double share = num(steady.get("achievedShare"));
        lines.add(verdict(
                share != null && share >= SteadyRun.REACHED_SHARE,
                "steady " + rate + "/s: producers reach ≥ 95 % of the asked rate: "
                        + fmt(num(steady.get("achievedRate"))) + "/s (" + fmt(share == null ? null : share * 100)
                        + " %)"));
        lines.add(verdict(p50 != null && p50 <= 5, "steady " + rate + "/s enqueue-to-start p50 ≤ 5 ms: " + fmt(p50)));
        lines.add(verdict(
                p99 != null && p99 <= 50,
                "steady " + rate + "/s enqueue-to-start p99 ≤ 50 ms: " + fmt(p99) + " (max live rows "
                        + steady.get("maxLiveRows") + ", not started " + steady.get("notStarted") + ")"));
    }

    private static void knee(List<String> lines, Map<String, Object> knee) {
        if (knee == null) {
            return;
        }
        Double rate = num(knee.get("kneeRate"));
        lines.add(verdict(
                rate != null && rate >= 5_000,
                "knee (highest rate with p99 ≤ 50 ms, ≥ 95 % reached)" + " ≥ 5,000/s: "
                        + (rate == null ? "none of the steps" : fmt(rate) + "/s")));
        Double floorKnee = num(knee.get("floorKneeRate"));
        if (floorKnee == null) {
            lines.add("knee ≥ " + Knee.RATIO_TO_FLOOR_TARGET + "× the floor's knee: n/a (run floor-steady with knee)");
            return;
        }
        Double ratio = num(knee.get("kneeRatioToFloor"));
        lines.add(verdict(
                ratio != null && ratio >= Knee.RATIO_TO_FLOOR_TARGET,
                "knee ≥ " + Knee.RATIO_TO_FLOOR_TARGET + "× the floor's knee: " + fmt(ratio) + "× ("
                        + (rate == null ? "none" : fmt(rate) + "/s") + " vs " + fmt(floorKnee) + "/s)"));
        Map<?, ?> eighty = knee.get("atEightyPercentOfFloorKnee") instanceof Map<?, ?> m ? m : null;
        Double p99 = eighty == null ? null : num(eighty.get("p99Ms"));
        lines.add(verdict(
                p99 != null && p99 <= SteadyRun.KNEE_P99_MS,
                "knee: p99 ≤ 50 ms at 80 % of the floor's knee"
                        + (eighty == null
                                ? ": not measured (the floor's knee was 0)"
                                : " (" + eighty.get("askedRate") + "/s, achieved "
                                        + fmt(num(eighty.get("achievedRate"))) + "/s): " + fmt(p99) + " ms")));
    }

    private static void floorSteady(List<String> lines, Map<String, Object> floor) {
        if (floor != null) {
            Double rate = num(floor.get("kneeRate"));
            lines.add("floor-steady (no target; the yardstick of the knee): the floor's knee "
                    + (rate == null || rate == 0 ? "none of the steps" : fmt(rate) + "/s") + ", p99 there "
                    + fmt(num(floor.get("p99Ms"))) + " ms");
        }
    }

    private static void insertCost(List<String> lines, Map<String, Object> insertCost) {
        if (insertCost != null) {
            lines.add("insert-cost (reported): " + insertCost.get("notes"));
        }
    }

    private static void scaleOut(List<String> lines, Map<String, Object> scaleOut) {
        if (scaleOut == null) {
            return;
        }
        Double ratio = num(scaleOut.get("drainRatioTwoToOne"));
        lines.add(verdict(
                ratio != null && ratio >= ScaleOut.TWO_TO_ONE_TARGET,
                "scale-out: two engine processes ≥ " + ScaleOut.TWO_TO_ONE_TARGET + "× one in burn-down: " + fmt(ratio)
                        + "× (three: " + fmt(num(scaleOut.get("drainRatioThreeToOne"))) + "×); "
                        + scaleOut.get("notes")));
    }

    private static void cost(List<String> lines, Map<String, Object> cost) {
        if (cost != null) {
            lines.add("cost (CPU µs per job, JVM / PostgreSQL backends / whole server): " + cost.get("notes"));
            Map<?, ?> ratios = cost.get("ratios") instanceof Map<?, ?> m ? m : Map.of();
            Double burn = num(ratios.get("burnDownToFloor"));
            lines.add(verdict(
                    burn != null && burn <= Cost.BURN_DOWN_RATIO_TARGET,
                    "cost: engine JVM + PostgreSQL backends CPU per job in burn-down ≤ " + Cost.BURN_DOWN_RATIO_TARGET
                            + "× the floor's: " + fmt(burn) + "× (steady state, reported: "
                            + fmt(num(ratios.get("steadyToFloorSteady"))) + "×, with the producers "
                            + fmt(num(ratios.get("steadyToFloorSteadyWithProducers"))) + "×)"));
        }
    }

    private static void backlogDepth(List<String> lines, Map<String, Object> depth) {
        if (depth == null) {
            return;
        }
        Double ratio = num(depth.get("drainRatioDeepestToNext"));
        lines.add(verdict(
                ratio != null && ratio >= BacklogDepth.DEEPEST_TO_NEXT_TARGET,
                "backlog depth: drain rate with " + depth.get("deepest") + " pending ≥ "
                        + BacklogDepth.DEEPEST_TO_NEXT_TARGET + "× the rate with " + depth.get("nextDeepest") + ": "
                        + fmt(ratio) + "×; " + depth.get("notes")));
    }

    private static String verdict(boolean met, String text) {
        return (met ? "MET: " : "MISSED: ") + text;
    }

    private static Double num(Object o) {
        return o instanceof Number n ? n.doubleValue() : null;
    }

    private static Long longOf(Object o) {
        return o instanceof Number n ? n.longValue() : null;
    }

    private static String fmt(Double d) {
        return d == null ? "n/a" : d >= 100 ? String.format("%,.0f", d) : String.format("%.3g", d);
    }
}
