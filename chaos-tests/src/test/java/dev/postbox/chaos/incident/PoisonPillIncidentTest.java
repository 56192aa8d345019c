package dev.postbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The poison-pill incident, reproduced (see {@code docs/postmortem-poison-pill.md}): K=3 worker
 * processes, a job that halts its worker JVM on every attempt, released by the same clock jump that
 * makes a herd of 5,500 jobs due at one instant (500 of them fail once, as if a downstream were
 * briefly down). The driver samples what on call sees every 500 ms and writes {@code
 * target/incident-timeline.json} and {@code .md}.
 *
 * <p>CI form: herd 5,000 + 500 flaky; then the "before the fix" comparison (poison budget 1000,
 * herd 1,000 + 100 flaky, observed 20 s); 60-100 s in all. Longer form: {@code
 * -Dincident.herd=50000 -Dincident.maxSeconds=600 -Dincident.comparisonHerd=5000
 * -Dincident.comparisonWindowSeconds=60}. Replay the job mix with {@code -Dincident.seed=<seed>};
 * {@code -Dincident.skipComparison=true} skips the comparison.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PoisonPillIncidentTest {

    /** Window of the comparison run, from the clock jump. */
    static final Duration COMPARISON_WINDOW = Duration.ofSeconds(Long.getLong("incident.comparisonWindowSeconds", 20));
    /** Herd of the comparison run (smaller than the main run's to keep CI short). */
    static final int COMPARISON_HERD = Integer.getInteger("incident.comparisonHerd", 1_000);

    private static final List<IncidentDriver.Run> runs = new ArrayList<>();

    @Test
    @Order(1)
    void poisonIsDeadLetteredAfterItsBudgetAndTheSloRecoversAfterTheHerd() throws Exception {
        IncidentDriver.Config config = IncidentDriver.Config.fixed();
        IncidentDriver.Run r = new IncidentDriver(config).run();
        record(r);
        String seed = "seed " + config.seed();

        // The poison job: dead-lettered with exactly its budget, through expired leases, in time.
        assertThat(r.values().get("poisonDeadLettered")).as(seed).isEqualTo(true);
        assertThat(r.count("poisonDeadAttempts")).as(seed).isEqualTo(config.poisonBudget());
        assertThat(r.count("poisonDeadMaxAttempts")).as(seed).isEqualTo(config.poisonBudget());
        assertThat((String) r.values().get("poisonDeadLastError"))
                .contains("lease expired on attempt " + config.poisonBudget() + " of " + config.poisonBudget());
        assertThat(r.count("poisonDeadAtMs"))
                .as(seed)
                .isBetween(0L, config.poisonDeadLimit().toMillis());
        assertThat(r.count("poisonAttemptsLogged")).as(seed).isEqualTo(config.poisonBudget());
        // It took down a worker once per attempt, and no more.
        assertThat(r.count("workerCrashesPoison")).as(seed).isEqualTo(config.poisonBudget());
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

        // The SLO signal: the oldest claimable job is younger than 5 s again within 60 s of the burst.
        assertThat(r.count("sloRecoveredAtMs"))
                .as(seed)
                .isBetween(0L, config.sloRecoveryLimit().toMillis());

        // Full jitter: the flaky jobs failed within moments of each other, their retries are spread.
        assertThat(r.count("flakyRetriesMeasured")).as(seed).isGreaterThanOrEqualTo(config.flakyJobs() * 8L / 10);
        assertThat((Double) r.values().get("flakyRetryDueMaxBucketShare"))
                .as("largest share of flaky retries due in one 100 ms bucket, " + seed)
                .isLessThanOrEqualTo(0.05);
        // The delays themselves are spread over the jitter window (a fixed backoff: one bucket).
        assertThat((Double) r.values().get("flakyRetryDelayMaxBucketShare"))
                .as("largest share of flaky retry delays in one 100 ms bucket, " + seed)
                .isLessThanOrEqualTo(0.05);
    }

    @Test
    @Order(2)
    void beforeTheFixThePoisonKeepsCrashLoopingTheFleet() throws Exception {
        assumeFalse(Boolean.getBoolean("incident.skipComparison"));
        IncidentDriver.Config config =
                IncidentDriver.Config.beforeFix(COMPARISON_WINDOW, COMPARISON_HERD, COMPARISON_HERD / 10);
        IncidentDriver.Run r = new IncidentDriver(config).run();
        record(r);

        // Never dead-lettered: it is still live at the end of the window, having crashed a worker
        // on every claim, more often than the fixed run's budget of 3 allows, and still going after
        // the herd is done.
        assertThat(r.values().get("poisonDeadLettered")).isEqualTo(false);
        assertThat(r.count("workerCrashesPoison"))
                .isGreaterThan(IncidentDriver.Config.fixed().poisonBudget());
        assertThat(r.count("workerCrashesAfterHerdDrained")).isPositive();
        assertThat(r.count("herdLost")).isZero();
        assertThat(r.count("workerExitsOther")).isZero();
        assertThat(r.count("duplicateEffects")).isZero();
    }

    private static synchronized void record(IncidentDriver.Run r) throws Exception {
        runs.add(r);
        IncidentReport.write(runs, r.config().reportDir());
        Map<String, Object> v = r.values();
        System.out.println("INCIDENT " + v.get("name") + " seed=" + v.get("seed") + " crashes="
                + v.get("workerCrashesPoison") + " poisonDeadAtMs=" + v.get("poisonDeadAtMs") + " oldestPeakMs="
                + v.get("oldestDueAgePeakMs") + " sloRecoveredAtMs=" + v.get("sloRecoveredAtMs")
                + " drainedAtMs=" + v.get("drainedAtMs") + " retryDueMaxBucketShare="
                + v.get("flakyRetryDueMaxBucketShare") + " crashesAfterHerd=" + v.get("workerCrashesAfterHerdDrained"));
    }
}
