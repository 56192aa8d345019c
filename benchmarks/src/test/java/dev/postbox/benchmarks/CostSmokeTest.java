package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cost per job on tiny sizes: the floor, a one-engine burn-down, a steady trickle through Postbox and
 * through the floor, each with CPU per job, and Postbox's ratios to the floor.
 */
class CostSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void reportsCpuPerJobOfTheJvmsAndOfPostgresForFloorBurnDownAndSteadyState() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = Cost.run(env, new Cost.Settings(1_000, 100, 20, 1));

        Map<String, Object> perJob = (Map<String, Object>) r.get("microsPerJob");
        assertThat(perJob).containsOnlyKeys("floor", "burnDown", "steady", "floorSteady");
        for (Object row : perJob.values()) {
            Map<String, Object> m = (Map<String, Object>) row;
            assertThat(((Number) m.get("jvm")).doubleValue()).isPositive();
            if (Boolean.TRUE.equals(r.get("postgresOnThisHost"))) {
                assertThat(((Number) m.get("postgresBackends")).doubleValue()).isPositive();
                assertThat(((Number) m.get("postgresServer")).doubleValue()).isPositive();
            }
        }
        assertThat(((Map<String, Object>) perJob.get("steady"))).containsKeys("producerJvm", "producerBackends");
        assertThat(((Map<String, Object>) perJob.get("floorSteady"))).containsKeys("producerJvm", "producerBackends");
        Map<String, Object> ratios = (Map<String, Object>) r.get("ratios");
        assertThat(ratios.get("burnDownTarget")).isEqualTo(1.3);
        if (Boolean.TRUE.equals(r.get("postgresOnThisHost"))) {
            assertThat(((Number) ratios.get("burnDownToFloor")).doubleValue()).isPositive();
            assertThat(((Number) ratios.get("steadyToFloorSteady")).doubleValue())
                    .isPositive();
        }
        assertThat(((Number) ((Map<String, Object>) r.get("floorCpu")).get("jobsPerSecond")).doubleValue())
                .isPositive();
    }
}
