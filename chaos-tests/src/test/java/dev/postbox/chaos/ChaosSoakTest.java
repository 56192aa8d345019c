package dev.postbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The soak (not in CI; {@code ./mvnw -B -pl chaos-tests verify -Psoak} on a quiet machine): the CI
 * weather for an hour, at least 1,000,000 committed intents, on an embedded PostgreSQL the run owns
 * and restarts every 5 minutes, judged by the same checker. {@code chaos.*} properties override the
 * profile (README), e.g. for a short smoke of the soak mode.
 */
@EnabledIfSystemProperty(named = "chaos.soak", matches = "true")
class ChaosSoakTest {

    @Test
    void anHourOfKillsCrashPointsAndDatabaseRestartsLosesNothing() throws Exception {
        ChaosConfig config = ChaosConfig.soak().withSystemProperties();
        ChaosResult r = new ChaosRun(config).run();
        String seed = "seed " + config.seed();

        assertThat(Checker.failures(r)).as("failure counts, " + seed).isEmpty();
        assertThat(r.coverageGaps()).as("minimum coverage, " + seed).isEmpty();
    }
}
