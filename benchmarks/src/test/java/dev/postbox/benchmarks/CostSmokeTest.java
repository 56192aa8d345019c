package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cost per job on tiny sizes: the floor, a one-engine burn-down and a steady trickle, each with CPU per job. */
class CostSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void reportsCpuPerJobOfTheJvmsAndOfPostgresForFloorBurnDownAndSteadyState() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = Cost.run(env, new Cost.Settings(1_000, 100, 20, 1));

        Map<String, Object> perJob = (Map<String, Object>) r.get("microsPerJob");
        assertThat(perJob).containsOnlyKeys("floor", "burnDown", "steady");
        for (Object row : perJob.values()) {
            Map<String, Object> m = (Map<String, Object>) row;
            assertThat(((Number) m.get("jvm")).doubleValue()).isPositive();
            if (Boolean.TRUE.equals(r.get("postgresOnThisHost"))) {
                assertThat(((Number) m.get("postgresBackends")).doubleValue()).isPositive();
                assertThat(((Number) m.get("postgresServer")).doubleValue()).isPositive();
            }
        }
        assertThat(((Map<String, Object>) perJob.get("steady"))).containsKeys("producerJvm", "producerBackends");
        assertThat(((Number) ((Map<String, Object>) r.get("floorCpu")).get("jobsPerSecond")).doubleValue())
                .isPositive();
    }
}
