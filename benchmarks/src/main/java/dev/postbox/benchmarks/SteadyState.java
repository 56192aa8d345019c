package dev.postbox.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Scenario 4: business transactions (one order row plus one intent) at a fixed rate, the producers
 * in their own JVM, one engine in another ({@link SteadyRun}); one result per rate, {@code
 * steady-state-<rate>}.
 */
final class SteadyState {

    private SteadyState() {}

    static List<Map<String, Object>> run(Env env, List<Integer> rates, int seconds) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        for (int rate : rates) {
            results.add(SteadyRun.run(rate, seconds, 1).toResult(env, "steady-state-" + rate));
        }
        return results;
    }
}
