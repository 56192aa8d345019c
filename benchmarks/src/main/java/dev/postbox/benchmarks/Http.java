package dev.postbox.benchmarks;

import java.util.Map;

/**
 * Scenario 6: signed, keyed HTTP deliveries to a local no-op receiver. The delivery-http module has
 * no job handler wired into the engine yet, so the scenario records that it is pending rather than
 * a number.
 */
final class Http {

    private Http() {}

    static Map<String, Object> run(Env env) {
        Map<String, Object> r = env.result("http", 0, 0);
        r.put("status", "pending");
        r.put("notes", "pending delivery-http integration (no job handler in dev.postbox.http yet)");
        return r;
    }
}
