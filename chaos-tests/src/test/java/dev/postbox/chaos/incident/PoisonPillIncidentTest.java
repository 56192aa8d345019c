package dev.postbox.chaos.incident;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The poison-pill incident, reproduced (see {@code docs/postmortem-poison-pill.md}): K=3 worker
 * processes with the engine's default concurrency, claim batch and prefetch, a job that halts its
 * worker JVM on every attempt, released by the same clock jump that makes a herd of 5,500 jobs due
 * at one instant (500 of them fail once, as if a downstream were briefly down). Each crash strands
 * the jobs its worker had claimed: the bystanders. The driver samples what on call sees every
 * 500 ms and writes {@code target/incident-timeline.json} and {@code .md}.
 *
 * <p>Then the comparison: the same incident on the engine before issue 11 (claim-time charging,
 * the {@code chargeAtClaim} negative control), which the bystander check must catch. Replay the job
 * mix with {@code -Dincident.seed=<seed>}; {@code -Dincident.skipComparison=true} skips the
 * comparison; {@code -Dincident.herd=50000 -Dincident.maxSeconds=600} is a longer form.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PoisonPillIncidentTest {

    private final List<IncidentRun.Result> runs = new ArrayList<>();
    private IncidentRun.Result fixed;

    private synchronized IncidentRun.Result fixedRun() throws Exception {
        if (fixed == null) {
            fixed = record(new IncidentRun(IncidentConfig.fixed()).run());
        }
        return fixed;
    }

    @Test
    @Order(1)
    void poisonIsDeadLetteredAfterItsBudgetAndTheSloRecoversAfterTheHerd() throws Exception {
        IncidentRun.Result r = fixedRun();
        IncidentConfig config = r.config();
        String seed = "seed " + config.seed();

        // The poison job: dead-lettered with exactly its budget charged, through expired leases, in time.
        assertThat(r.values().get("poisonDeadLettered")).as(seed).isEqualTo(true);
        assertThat(r.count("poisonDeadAttempts")).as(seed).isEqualTo(config.poisonBudget());
        assertThat(r.count("poisonDeadMaxAttempts")).as(seed).isEqualTo(config.poisonBudget());
        assertThat((String) r.values().get("poisonDeadLastError"))
                .contains("lease expired on attempt " + config.poisonBudget() + " of " + config.poisonBudget());
        assertThat(r.count("poisonDeadAtMs"))
                .as(seed)
                .isBetween(0L, config.poisonDeadLimit().toMillis());
        // Its crashes, counted at the workers: its budget, plus at most one attempt whose start was not yet
        // recorded when it crashed (after that the job is suspect and its start is recorded before it runs).
        assertThat(r.count("workerCrashesPoison"))
                .as(seed)
                .isBetween((long) config.poisonBudget(), config.poisonBudget() + 1L);
        assertThat(r.count("poisonHaltLines")).as(seed).isEqualTo(r.count("workerCrashesPoison"));
        assertThat(r.count("workerExitsOther")).as(seed).isZero();

        // The herd: everything done exactly once, nothing else dead.
        int jobs = config.herdJobs() + config.flakyJobs();
        assertThat(r.values().get("drained")).as(seed).isEqualTo(true);
        assertThat(r.count("herdLost")).as(seed).isZero();
        assertThat(r.count("flakyLost")).as(seed).isZero();
        assertThat(r.count("herdEffects")).as(seed).isEqualTo(config.herdJobs());
        assertThat(r.count("flakyEffects")).as(seed).isEqualTo(config.flakyJobs());
        assertThat(r.count("duplicateEffects")).as(seed).isZero();
        assertThat(r.count("archivedDone")).as(seed).isEqualTo(jobs);
        assertThat(r.count("deadLetters")).as(seed).isEqualTo(1);

        // The SLO signal: the oldest claimable job is younger than 5 s again soon after the burst.
        assertThat(r.count("sloRecoveredAtMs"))
                .as(seed)
                .isBetween(0L, config.sloRecoveryLimit().toMillis());

        // Full jitter: the flaky jobs failed within moments of each other, their retries are spread.
        // one measured retry per flaky job at most: a refunded lease is not a second failure
        assertThat(r.count("flakyRetriesMeasured")).as(seed).isBetween(config.flakyJobs() * 8L / 10, (long)
                config.flakyJobs());
        assertThat((Double) r.values().get("flakyRetryDueMaxBucketShare"))
                .as("largest share of flaky retries due in one 100 ms bucket, " + seed)
                .isLessThanOrEqualTo(0.05);
        // The delays themselves are spread over the whole jitter window of 5 s, 50 buckets of 100 ms (a
        // fixed backoff: one bucket; "equal jitter", half the window: 25). For 386-500 uniform delays
        // the largest bucket's share is 0.036 at the median and above 0.05 in 0.05-0.65 % of runs
        // (20,000 simulated runs each; a CI run once saw 0.0523), never above 0.06; and a bucket is
        // empty in about 2 % of runs, two or more much more rarely.
        assertThat(((Number) r.values().get("flakyRetryDelay100msBuckets")).intValue())
                .as("100 ms buckets of the 5 s jitter window holding a flaky retry delay, " + seed)
                .isGreaterThanOrEqualTo(45);
        assertThat((Double) r.values().get("flakyRetryDelayMaxBucketShare"))
                .as("largest share of flaky retry delays in one 100 ms bucket, " + seed)
                .isLessThanOrEqualTo(0.07);
    }

    @Test
    @Order(2)
    void aPoisonJobDoesNotChargeItsBystanders() throws Exception {
        IncidentRun.Result r = fixedRun();
        String seed = "seed " + r.config().seed();
        assertThat(r.count("workerCrashesPoison")).as(seed).isPositive();
        assertThat(r.count("bystanderDeadLetters")).as(seed).isZero();
        assertThat(r.count("herdLost") + r.count("flakyLost")).as(seed).isZero();
        assertThat(r.count("bystanderAttemptsChargedWithoutStart"))
                .as("bystanders' attempts charged beyond their handler starts, " + seed)
                .isLessThanOrEqualTo(bystanderBound(r));
    }

    @Test
    @Order(3)
    void beforeTheFixEveryCrashChargesItsBystanders() throws Exception {
        assumeFalse(Boolean.getBoolean("incident.skipComparison"));
        IncidentRun.Result r = record(new IncidentRun(IncidentConfig.beforeTheFix()).run());

        // The same check as aPoisonJobDoesNotChargeItsBystanders, judged on the old engine: it must fail.
        assertThat(r.count("workerCrashesPoison")).isPositive();
        assertThat(r.count("bystanderAttemptsChargedWithoutStart")).isGreaterThan(bystanderBound(r));
        assertThat(r.count("herdLost")).isZero();
        assertThat(r.count("workerExitsOther")).isZero();
        assertThat(r.count("duplicateEffects")).isZero();
    }

    /**
     * Bystanders may be charged only for attempts that started: at a crash, at most the {@code
     * concurrency} attempts in flight can have had their start recorded before their handler printed
     * its marker. Claim-time charging charges every claimed job of the crashed worker (up to
     * concurrency + prefetch).
     */
    private static long bystanderBound(IncidentRun.Result r) {
        return r.count("workerCrashesPoison") * r.config().concurrency();
    }

    private synchronized IncidentRun.Result record(IncidentRun.Result r) throws Exception {
        runs.add(r);
        IncidentReport.write(runs, r.config().reportDir());
        Map<String, Object> v = r.values();
        System.out.println("INCIDENT " + v.get("name") + " seed=" + v.get("seed") + " crashes="
                + v.get("workerCrashesPoison") + " poisonDeadAtMs=" + v.get("poisonDeadAtMs") + " oldestPeakMs="
                + v.get("oldestDueAgePeakMs") + " sloRecoveredAtMs=" + v.get("sloRecoveredAtMs")
                + " drainedAtMs=" + v.get("drainedAtMs") + " bystanderAttemptsChargedWithoutStart="
                + v.get("bystanderAttemptsChargedWithoutStart") + " retryDueMaxBucketShare="
                + v.get("flakyRetryDueMaxBucketShare"));
        return r;
    }
}
