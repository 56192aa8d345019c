package dev.postbox.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether a run saw enough to count: the profile's minimum faults and traffic. A valid verdict from
 * a run that met no minimum proves little (a run without kills loses nothing), so a profile with
 * minimums fails when one is not met.
 */
final class CoverageCheck {

    private CoverageCheck() {}

    static List<String> gaps(ChaosConfig config, ChaosResult r) {
        ChaosConfig.Coverage min = config.coverage();
        List<String> gaps = new ArrayList<>();
        atLeast(gaps, r, "intentsCommitted", min.committedIntents());
        atLeast(gaps, r, "workerKills", min.kills());
        atLeast(gaps, r, "zombieStopsFenced", min.zombieStopsFenced());
        atLeast(gaps, r, "backlogAtFirstKill", min.backlog());
        atLeast(gaps, r, "pgRestarts", min.pgRestarts());
        if (min.haltsPerCrashPoint() > 0) {
            @SuppressWarnings("unchecked")
            Map<String, Long> halts = (Map<String, Long>) r.values().get("crashPointHalts");
            for (CrashPoints.Point p : CrashPoints.Point.values()) {
                long n = halts.getOrDefault(p.label, 0L);
                if (n < min.haltsPerCrashPoint()) {
                    gaps.add("halts at " + p.label + " " + n + " < " + min.haltsPerCrashPoint());
                }
            }
        }
        if (min.everyKind()) {
            atLeast(gaps, r, "fanOutEffects", 1);
            atLeast(gaps, r, "cronFiresSeen", 1);
            atLeast(gaps, r, "poisonJobs", 1);
            atLeast(gaps, r, "rateLimitedRequests", 1);
            @SuppressWarnings("unchecked")
            Map<String, Long> kinds = (Map<String, Long>) r.values().get("intentsByKind");
            for (String kind : List.of(
                    Producer.LOCAL,
                    Producer.LOCAL + "-ordered",
                    Producer.WEBHOOK,
                    Producer.WEBHOOK + "-ordered",
                    Producer.LIMITED,
                    Producer.EVENT,
                    Producer.POISON)) {
                if (kinds.getOrDefault(kind, 0L) == 0) {
                    gaps.add("no committed " + kind + " intent");
                }
            }
        }
        if (min.rollbackTolerance() > 0) {
            double share = (Double) r.values().get("rollbackShare");
            double target = config.workload().rollbackShare();
            if (Math.abs(share - target) > min.rollbackTolerance()) {
                gaps.add("rollback share " + share + " outside " + target + " +- " + min.rollbackTolerance());
            }
        }
        return gaps;
    }

    private static void atLeast(List<String> gaps, ChaosResult r, String key, long min) {
        if (min > 0 && (!r.values().containsKey(key) || r.count(key) < min)) {
            gaps.add(key + " " + r.values().get(key) + " < " + min);
        }
    }
}
