package dev.postbox.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark harness. {@code java -jar benchmarks/target/postbox-benchmarks.jar all} runs every
 * scenario against the test-support database (see {@code dev.postbox.testing.TestDatabase}) and
 * writes {@code benchmarks/target/results/<scenario>.json} plus {@code summary.md}.
 *
 * <p>Sizes are system properties ({@code -Dbench.burnJobs=200000} and so on, see {@link Sizes}).
 */
public final class Bench {

    private static final Logger log = LoggerFactory.getLogger(Bench.class);

    /** Every scenario, each after waiting for a quiet machine: the lead's measuring run. */
    static final String ALL_QUIET = "all-quiet";

    static final List<String> ALL = List.of(
            "burn-down",
            "floor",
            Floor.FINISH_NAME,
            "peer",
            "steady-state",
            FloorSteady.NAME,
            Knee.NAME,
            ScaleOut.NAME,
            Cost.NAME,
            BacklogDepth.NAME,
            "enqueue-overhead",
            "concurrent-enqueue",
            InsertCost.NAME,
            "http",
            HttpFloor.NAME,
            KafkaRelayBench.NAME,
            AmqpRelayBench.NAME,
            NatsRelayBench.NAME,
            "history-growth",
            "memory",
            "console",
            TenantFlood.NAME,
            Ordered.NAME);

    private Bench() {}

    public static void main(String[] args) throws Exception {
        List<String> scenarios = new ArrayList<>();
        boolean quiet = false;
        for (String arg : args) {
            if (arg.equals("all")) {
                scenarios.addAll(ALL);
            } else if (arg.equals(ALL_QUIET)) {
                scenarios.addAll(ALL);
                quiet = true;
            } else if (ALL.contains(arg)) {
                scenarios.add(arg);
            } else {
                System.err.println(
                        "Unknown scenario '" + arg + "'. Scenarios: all " + ALL_QUIET + " " + String.join(" ", ALL));
                System.exit(2);
            }
        }
        if (scenarios.isEmpty()) {
            System.err.println(
                    "Usage: java -jar postbox-benchmarks.jar all | " + ALL_QUIET + " | " + String.join(" | ", ALL));
            System.exit(2);
        }
        Env env = Env.create(Results.defaultDirectory());
        run(env, Sizes.fromSystemProperties(), scenarios, quiet);
        System.exit(0); // db-scheduler and Hikari leave non-daemon threads behind
    }

    static Map<String, Map<String, Object>> run(Env env, Sizes sizes, List<String> scenarios) throws Exception {
        return run(env, sizes, scenarios, false);
    }

    /**
     * Runs the scenarios in order and writes their results; returns them by file name. With {@code
     * quiet}, waits for a quiet machine ({@link QuietMachine}) before each scenario.
     */
    static Map<String, Map<String, Object>> run(Env env, Sizes sizes, List<String> scenarios, boolean quiet)
            throws Exception {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        // The ratios need the floor and the peer: when burn-down runs with them, it runs after them.
        List<String> ordered = new ArrayList<>(scenarios);
        if (ordered.remove("burn-down")) {
            int after = Math.max(ordered.indexOf("floor"), ordered.indexOf("peer"));
            ordered.add(after + 1, "burn-down");
        }
        // Knee's ratio needs the floor's knee: when knee runs with floor-steady, it runs after it.
        if (ordered.contains(FloorSteady.NAME) && ordered.remove(Knee.NAME)) {
            ordered.add(ordered.indexOf(FloorSteady.NAME) + 1, Knee.NAME);
        }
        for (String scenario : ordered) {
            QuietMachine.Wait wait = quiet ? QuietMachine.await() : null;
            double loadBefore = Env.loadAverage();
            log.info("=== {} (load average {}) ===", scenario, loadBefore);
            List<Map<String, Object>> results = switch (scenario) {
                case "burn-down" -> List.of(BurnDown.run(env, sizes.burnJobs()));
                case "floor" -> List.of(Floor.run(env, sizes.burnJobs(), sizes.floorBatch()));
                case Floor.FINISH_NAME -> List.of(Floor.runWithEngineFinish(env, sizes.burnJobs(), sizes.floorBatch()));
                case "peer" -> List.of(Peer.run(env, sizes.burnJobs(), 20));
                case "steady-state" -> SteadyState.run(env, sizes.steadyRates(), sizes.steadySeconds());
                case FloorSteady.NAME -> List.of(FloorSteady.run(env, Knee.Settings.fromSystemProperties()));
                case Knee.NAME -> List.of(Knee.run(env, Knee.Settings.fromSystemProperties()));
                case ScaleOut.NAME ->
                    List.of(ScaleOut.run(env, ScaleOut.Settings.fromSystemProperties(sizes.burnJobs())));
                case BacklogDepth.NAME -> List.of(BacklogDepth.run(env, BacklogDepth.Settings.fromSystemProperties()));
                case Cost.NAME ->
                    List.of(Cost.run(env, Cost.Settings.fromSystemProperties(sizes.burnJobs(), sizes.floorBatch())));
                case "enqueue-overhead" -> List.of(EnqueueOverhead.run(env, sizes.overheadTransactions()));
                case ConcurrentEnqueue.NAME ->
                    List.of(ConcurrentEnqueue.run(env, ConcurrentEnqueue.Settings.fromSystemProperties()));
                case InsertCost.NAME -> List.of(InsertCost.run(env, InsertCost.Settings.fromSystemProperties()));
                case "http" -> List.of(Http.run(env, sizes.httpJobs()));
                case HttpFloor.NAME -> List.of(HttpFloor.run(env, sizes.httpJobs()));
                case KafkaRelayBench.NAME ->
                    List.of(KafkaRelayBench.run(env, KafkaRelayBench.Settings.fromSystemProperties()));
                case AmqpRelayBench.NAME ->
                    List.of(AmqpRelayBench.run(env, AmqpRelayBench.Settings.fromSystemProperties()));
                case NatsRelayBench.NAME ->
                    List.of(NatsRelayBench.run(env, NatsRelayBench.Settings.fromSystemProperties()));
                case "history-growth" -> List.of(HistoryGrowth.run(env, sizes.historySizes()));
                case "memory" -> List.of(Memory.run(env, sizes.memoryJobs(), sizes.memoryHeap()));
                case "console" -> List.of(Console.run(env, Console.Volumes.fromSystemProperties()));
                case TenantFlood.NAME -> List.of(TenantFlood.run(env, TenantFlood.Settings.fromSystemProperties()));
                case Ordered.NAME -> List.of(Ordered.run(env, Ordered.Settings.fromSystemProperties()));
                default -> throw new IllegalArgumentException(scenario);
            };
            for (Map<String, Object> result : results) {
                result.put("loadAverageAtStart", loadBefore);
                if (wait != null) {
                    result.put("quietWaitSeconds", wait.waitedSeconds());
                    result.put("quietWaitTimedOut", wait.timedOut());
                }
                env.write(result);
                out.put((String) result.get("scenario"), result);
            }
        }
        env.writeSummary();
        log.info("Results in {}", env.resultsDirectory().toAbsolutePath());
        return out;
    }

    /** Scenario sizes; the defaults are the full sizes of the issue. */
    record Sizes(
            int burnJobs,
            int floorBatch,
            List<Integer> steadyRates,
            int steadySeconds,
            int overheadTransactions,
            List<Integer> historySizes,
            int memoryJobs,
            String memoryHeap,
            int httpJobs) {

        static Sizes fromSystemProperties() {
            List<Integer> history = new ArrayList<>(List.of(10_000, 1_000_000));
            if (Boolean.getBoolean("bench.history10m")) {
                history.add(10_000_000);
            }
            return new Sizes(
                    Integer.getInteger("bench.burnJobs", 200_000),
                    Integer.getInteger("bench.floorBatch", 500),
                    ints(System.getProperty("bench.steadyRates", "2000,5000")),
                    Integer.getInteger("bench.steadySeconds", 30),
                    Integer.getInteger("bench.overheadTransactions", 10_000),
                    System.getProperty("bench.historySizes") != null
                            ? ints(System.getProperty("bench.historySizes"))
                            : history,
                    Integer.getInteger("bench.memoryJobs", 1_000_000),
                    System.getProperty("bench.memoryHeap", "256m"),
                    Integer.getInteger("bench.httpJobs", 100_000));
        }

        static List<Integer> ints(String csv) {
            List<Integer> list = new ArrayList<>();
            for (String s : csv.split(",")) {
                list.add(Integer.parseInt(s.trim()));
            }
            return list;
        }
    }

    static Path resultsDirectory() {
        return Results.defaultDirectory();
    }
}
