package dev.postbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chaos suite in {@code ./mvnw verify}: one CI-sized run that must keep the contract, and two
 * short negative controls that must be judged invalid (proof that the checker can fail).
 * {@code -Dchaos.skipControls=true} skips the controls (soak runs).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChaosTest {

    @Test
    @Order(1)
    void workersKilledAtRandomLoseNothingAndDuplicateNoEffect() throws Exception {
        ChaosConfig config = ChaosConfig.ci().withOverrides();
        ChaosResult r = new ChaosDriver(config).run();

        assertThat(Checker.failures(r))
                .as("failure counts, seed " + config.seed())
                .isEmpty();
        assertThat(r.count("lost")).isZero();
        assertThat(r.count("ghosts")).isZero();
        assertThat(r.count("duplicateEffects")).isZero();
        assertThat(r.values().get("verdict")).isEqualTo("valid");
        if (config.minCommittedIntents() >= 10_000) {
            assertThat(r.count("intentsCommitted")).isGreaterThanOrEqualTo(10_000);
            assertThat(r.count("workerKills") + r.count("crashPointHalts")).isGreaterThanOrEqualTo(20);
            assertThat(r.count("workerKills")).isGreaterThanOrEqualTo(20);
        }
    }

    @Test
    @Order(2)
    void receiverWithoutDeduplicationIsCaught() throws Exception {
        assumeFalse(Boolean.getBoolean("chaos.skipControls"));
        ChaosConfig config =
                ChaosConfig.ci().named("chaos-control-dedup-off").shortRun(800).receiverDedup(false, 0.15);
        ChaosResult r = new ChaosDriver(config).run();

        assertThat(r.count("duplicateEffectsReceiver")).isPositive();
        assertThat(r.values().get("verdict")).isEqualTo("invalid");
    }

    @Test
    @Order(3)
    void engineWithoutFencedCompletionIsCaught() throws Exception {
        assumeFalse(Boolean.getBoolean("chaos.skipControls"));
        ChaosConfig config = ChaosConfig.ci()
                .named("chaos-control-broken-fencing")
                .shortRun(800)
                .brokenFencing(1.0);
        ChaosResult r = new ChaosDriver(config).run();

        assertThat(r.count("zombieStops")).isPositive();
        assertThat(r.count("duplicateEffectsLocal")).isPositive();
        assertThat(r.values().get("verdict")).isEqualTo("invalid");
    }
}
