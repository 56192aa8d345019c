package dev.postbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 11's crash storm: 40,000 committed local jobs (the control: 20,000), the engine's default concurrency, claim
 * batch and prefetch (each worker holds about a thousand claimed jobs), and a SIGKILL every 1-3 s
 * until the backlog is drained. A healthy job must never be dead-lettered for crashes it never
 * started in; the same storm on the engine before issue 11 (claim-time charging) must be caught by
 * the same checker.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrashStormTest {

    @Test
    @Order(1)
    void aCrashStormDoesNotDeadLetterHealthyJobs() throws Exception {
        ChaosConfig config = ChaosConfig.crashStorm();
        ChaosResult r = new ChaosRun(config).run();
        String seed = "seed " + config.seed();

        assertThat(r.count("unexpectedDeadLetters")).as(seed).isZero();
        assertThat(r.count("lost")).as(seed).isZero();
        assertThat(r.count("duplicateEffects")).as(seed).isZero();
        assertThat(Checker.failures(r)).as("failure counts, " + seed).isEmpty();
        assertThat(r.coverageGaps()).as("minimum coverage, " + seed).isEmpty();
    }

    @Test
    @Order(2)
    void claimTimeChargingInTheSameStormIsCaught() throws Exception {
        assumeFalse(Boolean.getBoolean("chaos.skipControls"));
        ChaosConfig config = ChaosConfig.crashStormChargingAtClaim();
        ChaosResult r = new ChaosRun(config).run();

        ChaosTest.assertCaught(r, Control.CHARGE_AT_CLAIM);
        // attempts charged without a start that no worker death explains
        ChaosTest.assertCaughtBy(r, "chargesUnexplained", Control.CHARGE_AT_CLAIM.toString());
    }
}
