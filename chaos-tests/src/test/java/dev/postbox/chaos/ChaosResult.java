package dev.postbox.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The checker's counts plus the run's fault counts. The verdict is {@code valid} only when every
 * failure count is 0; coverage (did the run see enough faults and traffic to count?) is judged
 * apart, so that a short control run is invalid because of its defect, not because it was short.
 */
public final class ChaosResult {

    /** Counts that must all be 0 for a valid verdict. */
    static final List<String> FAILURES = List.of(
            "lost",
            "ghosts",
            "duplicateEffects",
            "unexpectedTargets",
            // per-key order (KeyOrderCheck): two jobs of a key running at once, a key's jobs handled
            // out of the commit order the application recorded
            "keyHandlerOverlaps",
            "commitOrderInversions",
            // hung handlers (HungCheck): an attempt that ran past its time limit plus one lease
            "hungAttemptsOverrun",
            "poisonViolations",
            "chargesUnexplained",
            "unexpectedDeadLetters",
            "cronMisfires",
            "rateLimitViolations",
            // the tenant dimension: an effect under another tenant than its intent's, and a named
            // tenant's webhook rate at the receiver
            "crossTenantEffects",
            "tenantRateLimitViolations",
            "fanOutMissing",
            "receiverSignatureRejections",
            "notTerminal",
            "producerFailures",
            "unexpectedWorkerExits",
            // the broker destinations (BrokerCheck); Kafka's and RabbitMQ's plain duplicates are
            // at-least-once delivery, reported but not failures
            "kafkaLost",
            "amqpLost",
            "natsLost",
            "natsDuplicates",
            "kafkaDuplicatesAfterKeyDedupe",
            "amqpDuplicatesAfterKeyDedupe",
            "natsDuplicatesAfterKeyDedupe",
            "kafkaOrderViolations",
            "kafkaRecordKeyMismatches");

    /**
     * Counts that are a part of a failure count (the one they map to): a control that moves a part
     * moves its whole, and the verdict names both.
     */
    static final Map<String, String> PARTS = Map.of(
            "duplicateEffectsLocal", "duplicateEffects",
            "duplicateEffectsReceiver", "duplicateEffects",
            "crossTenantEffectsLocal", "crossTenantEffects",
            "crossTenantEffectsReceiver", "crossTenantEffects",
            "duplicateEffectsHung", "duplicateEffects",
            "sharedKeyIntentsLost", "lost");

    /**
     * Fails unless {@code counter} is a failure count or a part of one: a control whose counter was
     * renamed or unhooked from the verdict must fail before its run, not pass on a count nobody judges.
     */
    static void requireJudged(String counter) {
        if (!FAILURES.contains(counter) && !PARTS.containsKey(counter)) {
            throw new IllegalArgumentException("'" + counter + "' is no failure count of the chaos verdict"
                    + " (ChaosResult.FAILURES) nor a part of one (ChaosResult.PARTS): add it there, or name the"
                    + " count the control moves");
        }
    }

    private final Map<String, Object> values = new LinkedHashMap<>();
    private final List<String> coverageGaps = new ArrayList<>();
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

    void coverageGaps(List<String> gaps) {
        coverageGaps.clear();
        coverageGaps.addAll(gaps);
    }

    /** What the run lacked of its profile's minimum coverage; empty when it was met. */
    public List<String> coverageGaps() {
        return List.copyOf(coverageGaps);
    }

    /** Computes the verdict; call after every count is in. */
    void finish() {
        values.remove("verdict");
        values.put("verdict", valid() ? "valid" : "invalid");
        values.put("coverage", coverageGaps.isEmpty() ? "met" : "NOT met: " + String.join(", ", coverageGaps));
    }

    public boolean valid() {
        return Checker.failures(this).isEmpty();
    }

    public long count(String key) {
        Object v = values.get(key);
        if (!(v instanceof Number n)) {
            throw new IllegalStateException("no count '" + key + "' in the chaos result");
        }
        return n.longValue();
    }

    public Map<String, Object> values() {
        return values;
    }

    String summary() {
        StringBuilder b = new StringBuilder();
        for (String key : List.of(
                "verdict",
                "coverage",
                "intentsCommitted",
                "intentsRolledBack",
                "lost",
                "ghosts",
                "duplicateEffects",
                "keyHandlerOverlaps",
                "commitOrderInversions",
                "commitOrderAgainstSeqOrder",
                "hungAttemptsOverrun",
                "duplicateEffectsHung",
                "timedOutAttempts",
                "rateLimitMaxPerSecond",
                "rateLimitViolations",
                "crossTenantEffects",
                "sharedKeyIntentsLost",
                "tenantRateLimitMaxPerSecond",
                "tenantRateLimitViolations",
                "poisonViolations",
                "unexpectedDeadLetters",
                "attemptsChargedWithoutStart",
                "chargesUnexplained",
                "cronMisfires",
                "kafkaLost",
                "amqpLost",
                "natsLost",
                "kafkaDuplicates",
                "amqpDuplicates",
                "natsDuplicates",
                "kafkaOrderViolations",
                "notTerminal",
                "workerKills",
                "crashPointHalts",
                "zombieStopsFenced",
                "connectionsKilled")) {
            b.append(key).append('=').append(values.get(key)).append(' ');
        }
        return b.toString().trim();
    }
}
