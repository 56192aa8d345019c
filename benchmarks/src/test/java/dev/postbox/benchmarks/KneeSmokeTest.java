package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One-second steps of the floor's and Postbox's knee searches at tiny rates: producers, the floor's
 * consumer and the engine in child JVMs, every committed job started, CPU read from /proc, the knee
 * beside the floor's and the summary lines written.
 */
class KneeSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void floorSteadyAndKneeStepTheSameRatesAndKneeReportsItsRatioAndTheStepAtEightyPercentOfTheFloor()
            throws Exception {
        Env env = Env.create(results);
        Knee.Settings settings = new Knee.Settings(List.of(20), 1, true);

        Map<String, Object> floor = FloorSteady.run(env, settings);
        env.write(floor);
        // A fixed floor knee whatever this loaded machine's floor reached at 20/s: 80 % of it is the
        // 20/s step, which the knee reports without running it twice.
        env.floorSteadyKnee(25);
        Map<String, Object> knee = Knee.run(env, settings);
        env.write(knee);
        env.writeSummary();

        List<Map<String, Object>> floorSteps = (List<Map<String, Object>>) floor.get("steps");
        assertThat(floorSteps).hasSize(1);
        assertThat(((Number) floorSteps.get(0).get("achievedRate")).doubleValue())
                .isPositive();
        assertThat(((Number) floorSteps.get(0).get("notStarted")).longValue()).isZero();
        assertThat(floor).containsKeys("kneeRate", "p99Ms", "loadAverageAtEnd");
        List<Map<String, Object>> steps = (List<Map<String, Object>>) knee.get("steps");
        assertThat(steps).hasSize(1);
        assertThat(((Number) steps.get(0).get("notStarted")).longValue()).isZero();
        assertThat(knee.get("floorKneeRate")).isEqualTo(25);
        Map<String, Object> eighty = (Map<String, Object>) knee.get("atEightyPercentOfFloorKnee");
        assertThat(eighty).isEqualTo(steps.get(0));
        assertThat(eighty.get("askedRate")).isEqualTo(20);
        assertThat(((Number) eighty.get("achievedRate")).doubleValue()).isPositive();
        assertThat(eighty).containsKey("p99Ms");
        assertThat(((Number) knee.get("kneeRatioToFloor")).doubleValue())
                .isEqualTo(knee.get("kneeRate") == null ? 0.0 : 20 / 25.0, within(0.001));
        String summary = Files.readString(results.resolve("summary.md"));
        assertThat(summary)
                .contains(
                        "| floor-steady |", "| knee |", "knee ≥ 0.8× the floor's knee", "at 80 % of the floor's knee");
    }

    @Test
    void kneeStepsBy250PerSecondByDefault() {
        assertThat(Knee.Settings.stepped(Knee.DEFAULT_STEP, 1_000)).containsExactly(250, 500, 750, 1_000);
        assertThatThrownBy(() -> Knee.Settings.stepped(0, 1_000)).hasMessageContaining("bench.kneeStep");
    }

    @Test
    @SuppressWarnings("unchecked")
    void steadyRunReportsAskedAndAchievedRatesAndCpuPerJob() throws Exception {
        SteadyRun.Outcome outcome = SteadyRun.run(30, 1, 1);

        Map<String, Object> f = outcome.fields();
        assertThat(f.get("askedRate")).isEqualTo(30);
        assertThat(((Number) f.get("achievedRate")).doubleValue()).isPositive();
        assertThat(outcome.latency().measured()).isPositive();
        assertThat(outcome.latency().notStarted()).isZero();
        assertThat((List<Long>) f.get("completedPerEngine")).hasSize(1);
        Map<String, Object> cpu = (Map<String, Object>) f.get("cpu");
        Map<String, Object> engine = (Map<String, Object>) ((Map<String, Object>) cpu.get("jvms")).get("engine-1");
        Map<String, Object> producers = (Map<String, Object>) ((Map<String, Object>) cpu.get("jvms")).get("producers");
        assertThat(((Number) engine.get("cpuMicros")).longValue()).isPositive();
        assertThat(((Number) producers.get("cpuMicros")).longValue()).isPositive();
        Map<String, Object> backends = (Map<String, Object>) cpu.get("postgresBackends");
        assertThat(backends).containsKeys(EngineChild.APPLICATION, ProducerChild.APPLICATION);
        if (Boolean.TRUE.equals(cpu.get("postgresOnThisHost"))) {
            Map<String, Object> engineBackends = (Map<String, Object>) backends.get(EngineChild.APPLICATION);
            assertThat(((Number) engineBackends.get("backends")).intValue()).isPositive();
            assertThat(((Number) engineBackends.get("cpuMicros")).longValue()).isPositive();
        }
    }
}
