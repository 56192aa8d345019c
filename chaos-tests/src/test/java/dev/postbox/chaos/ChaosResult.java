package dev.postbox.chaos;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The checker's counts plus the run's fault counts; valid only when every failure count is 0. */
public final class ChaosResult {

    /** Counts that must all be 0 for a valid verdict. */
    static final List<String> FAILURES = List.of(
            "lost",
            "ghosts",
            "duplicateEffects",
            "orderViolations",
            "poisonViolations",
            "unexpectedDeadLetters",
            "cronMisfires",
            "rateLimitViolations",
            "fanOutMissing",
            "fanOutDuplicateEffects",
            "fanOutUnexpectedEndpoints",
            "receiverSignatureRejections",
            "notTerminal");

    private final Map<String, Object> values = new LinkedHashMap<>();
    private Histogram latency = new Histogram(3_600_000L, 3);

    void put(String key, Object value) {
        values.put(key, value);
    }

    void latency(Histogram histogram) {
        this.latency = histogram;
    }

    Histogram latency() {
        return latency;
    }

    /** Computes the verdict; call after every count is in. */
    void finish() {
        values.remove("verdict");
        values.put("verdict", valid() ? "valid" : "invalid");
    }

    public boolean valid() {
        for (String key : FAILURES) {
            if (count(key) != 0) {
                return false;
            }
        }
        return true;
    }

    public long count(String key) {
        Object v = values.get(key);
        if (v == null) {
            throw new IllegalStateException("no count '" + key + "' in the chaos result");
        }
        return ((Number) v).longValue();
    }

    public Map<String, Object> values() {
        return values;
    }

    String summary() {
        StringBuilder b = new StringBuilder();
        for (String key : List.of(
                "verdict",
                "intentsCommitted",
                "intentsRolledBack",
                "effectsApplied",
                "lost",
                "ghosts",
                "duplicateEffects",
                "duplicateDeliveries",
                "orderViolations",
                "fanOutEvents",
                "fanOutMissing",
                "fanOutDuplicateEffects",
                "rateLimitMaxPerSecond",
                "rateLimitViolations",
                "poisonViolations",
                "cronMisfires",
                "notTerminal",
                "workerKills",
                "crashPointHalts",
                "zombiesFenced",
                "connectionsKilled")) {
            b.append(key).append('=').append(values.get(key)).append(' ');
        }
        return b.toString().trim();
    }
}
