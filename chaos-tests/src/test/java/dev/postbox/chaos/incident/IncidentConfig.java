package dev.postbox.chaos.incident;

import dev.postbox.PostboxConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One poison-pill incident scenario. {@link #fixed()} is the engine as shipped; {@link
 * #beforeTheFix()} is the same incident on the engine as it was before issue 11 (claim-time
 * charging: {@code -Dpostbox.control.chargeAtClaim=true} in the workers).
 *
 * @param chargeAtClaim the workers run with the claim-time charging negative control
 */
record IncidentConfig(
        String name,
        String description,
        long seed,
        int workers,
        int concurrency,
        int claimBatchSize,
        int prefetch,
        int herdJobs,
        int flakyJobs,
        int poisonBudget,
        int herdBudget,
        int maxWorkMillis,
        Duration visibilityTimeout,
        Duration sloThreshold,
        Duration sloRecoveryLimit,
        Duration poisonDeadLimit,
        Duration maxRun,
        Duration sampleInterval,
        boolean chargeAtClaim,
        Path reportDir) {

    /**
     * The engine as shipped, with its default concurrency, claim batch and prefetch, so that each
     * crash strands about a thousand claimed bystanders. The limits are about twice what the shared
     * 2-core box showed at low load (SLO recovered 7.7 s, poison dead 13.3 s after the jump; at load
     * 14: 14.2 s and 18.2 s).
     */
    static IncidentConfig fixed() {
        PostboxConfig defaults = PostboxConfig.ofDefaults();
        return new IncidentConfig(
                "fixed",
                "engine as shipped: only started attempts are charged; poison budget 3",
                Long.getLong("incident.seed", 20_250_801L),
                Integer.getInteger("incident.workers", 3),
                defaults.concurrency(),
                defaults.claimBatchSize(),
                defaults.prefetch(),
                Integer.getInteger("incident.herd", 5_000),
                Integer.getInteger("incident.flaky", 500),
                3,
                20,
                Integer.getInteger("incident.maxWorkMs", 20),
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                Duration.ofSeconds(16),
                Duration.ofSeconds(27),
                Duration.ofSeconds(Long.getLong("incident.maxSeconds", 90)),
                Duration.ofMillis(500),
                false,
                Path.of(System.getProperty("chaos.reportDir", "target")));
    }

    /** The same incident on the engine before issue 11: every claim is charged, started or not. */
    static IncidentConfig beforeTheFix() {
        IncidentConfig f = fixed();
        return new IncidentConfig(
                "before-fix",
                "comparison: the engine before issue 11 (claim-time charging, the chargeAtClaim negative control):"
                        + " every crash charges the attempts of the jobs its worker had claimed but not started",
                f.seed,
                f.workers,
                f.concurrency,
                f.claimBatchSize,
                f.prefetch,
                f.herdJobs,
                f.flakyJobs,
                f.poisonBudget,
                f.herdBudget,
                f.maxWorkMillis,
                f.visibilityTimeout,
                f.sloThreshold,
                f.sloRecoveryLimit,
                f.poisonDeadLimit,
                f.maxRun,
                f.sampleInterval,
                true,
                f.reportDir);
    }
}
