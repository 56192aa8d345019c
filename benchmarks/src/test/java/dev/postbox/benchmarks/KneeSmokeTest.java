package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two one-second steps of the knee search at tiny rates: producers and engine in child JVMs, every
 * committed job started, CPU read from /proc, the knee and the summary line written.
 */
class KneeSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void kneeStepsRunProducersAndEngineInTheirOwnJvms() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = Knee.run(env, new Knee.Settings(List.of(20, 40), 1, true));
        env.write(r);
        env.writeSummary();

        List<Map<String, Object>> steps = (List<Map<String, Object>>) r.get("steps");
        assertThat(steps).hasSize(2);
        for (Map<String, Object> step : steps) {
            assertThat(((Number) step.get("achievedRate")).doubleValue()).isPositive();
            assertThat(((Number) step.get("notStarted")).longValue()).isZero();
            assertThat(step).containsKeys("p50Ms", "p99Ms", "withinKnee");
        }
        assertThat(r).containsKeys("kneeRate", "secondsPerStep");
        assertThat(Files.readString(results.resolve("summary.md"))).contains("| knee |");
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
