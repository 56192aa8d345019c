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
            @SuppressWarnings("unchecked")
            Map<String, Long> afterAck = (Map<String, Long>) r.values().get("crashPointHaltsAfterBrokerAck");
            if (afterAck != null) {
                for (String broker : Brokers.ALL) {
                    if (afterAck.getOrDefault(broker, 0L) < 1) {
                        gaps.add("no halt between a " + broker + " acknowledgement and its completion");
                    }
                }
            }
        }
        if (min.everyKind()) {
            atLeast(gaps, r, "fanOutEffects", 1);
            atLeast(gaps, r, "cronFiresSeen", 1);
            atLeast(gaps, r, "poisonJobs", 1);
            atLeast(gaps, r, "rateLimitedRequests", 1);
            // the new weather: keyed transactions that committed out of their enqueue order, handler runs
            // of ordered jobs to judge, hung attempts given up for their limit
            atLeast(gaps, r, "commitOrderAgainstSeqOrder", 1);
            atLeast(gaps, r, "keyRuns", 1);
            atLeast(gaps, r, "timedOutAttempts", 1);
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
            // the tenant dimension: every named tenant wrote every kind it can, reached its endpoints,
            // and reused keys of the others
            @SuppressWarnings("unchecked")
            Map<String, Long> byTenant = (Map<String, Long>) r.values().get("intentsByTenantAndKind");
            @SuppressWarnings("unchecked")
            Map<String, Long> tenantRequests = (Map<String, Long>) r.values().get("tenantRateLimitedRequests");
            for (String tenant : ChaosTenants.NAMED) {
                for (String kind : List.of(
                        Producer.LOCAL,
                        Producer.LOCAL + "-ordered",
                        Producer.WEBHOOK,
                        Producer.WEBHOOK + "-ordered",
                        Producer.EVENT)) {
                    if (byTenant.getOrDefault(tenant + " " + kind, 0L) == 0) {
                        gaps.add("no committed " + kind + " intent of tenant " + tenant);
                    }
                }
                if (tenantRequests.getOrDefault(tenant, 0L) == 0) {
                    gaps.add("no request of tenant " + tenant + " at the receiver");
                }
            }
            atLeast(gaps, r, "sharedKeyIntents", 1);
            List<String> brokerKinds = List.of(Brokers.KAFKA, Brokers.KAFKA + "-ordered", Brokers.AMQP, Brokers.NATS);
            for (String kind : r.values().containsKey("brokerMessagesRead") ? brokerKinds : List.<String>of()) {
                if (kinds.getOrDefault(kind, 0L) == 0) {
                    gaps.add("no committed " + kind + " intent");
                }
            }
        }
        if (min.rollbackTolerance() > 0) {
            double share = (Double) r.values().get("rollbackShare");
            double target = config.workload().rollbackShare();
            long transactions = r.count("businessTransactionsCommitted") + r.count("businessTransactionsRolledBack");
            double tolerance = rollbackTolerance(min.rollbackTolerance(), target, transactions);
            if (Math.abs(share - target) > tolerance) {
                gaps.add("rollback share " + share + " outside " + target + " +- "
                        + Math.round(tolerance * 1000) / 1000.0 + " (" + transactions + " transactions)");
            }
        }
        return gaps;
    }

    /**
     * The configured tolerance, or four standard deviations of the share of {@code transactions}
     * independent draws if that is wider: a run of a few hundred transactions (the crash storm's
     * 460) lands outside a fixed +-0.03 by chance about once in twenty runs, while a broken enqueue
     * that rolls back what it should commit moves the share far more than four deviations.
     */
    static double rollbackTolerance(double configured, double target, long transactions) {
        if (transactions <= 0) {
            return configured;
        }
        return Math.max(configured, 4 * Math.sqrt(target * (1 - target) / transactions));
    }

    private static void atLeast(List<String> gaps, ChaosResult r, String key, long min) {
        if (min > 0 && (!r.values().containsKey(key) || r.count(key) < min)) {
            gaps.add(key + " " + r.values().get(key) + " < " + min);
        }
    }
}
