package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One and two engine JVMs on tiny sizes: both drain everything between them and relay a steady trickle. */
class ScaleOutSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void drainsAndRelaysWithOneAndTwoEngineJvms() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = ScaleOut.run(env, new ScaleOut.Settings(List.of(1, 2), 600, 20, 1));

        List<Map<String, Object>> levels = (List<Map<String, Object>>) r.get("levels");
        assertThat(levels).extracting(l -> l.get("engines")).containsExactly(1, 2);
        for (Map<String, Object> level : levels) {
            assertThat(level.get("drainCompleted")).isEqualTo(true);
            List<Long> perEngine = (List<Long>) level.get("drainCompletedPerEngine");
            assertThat(perEngine).hasSize((Integer) level.get("engines"));
            assertThat(perEngine.stream().mapToLong(Long::longValue).sum()).isEqualTo(600);
            assertThat(((Number) level.get("drainJobsPerSecond")).doubleValue()).isPositive();
            assertThat(((Number) level.get("steadyNotStarted")).longValue()).isZero();
            assertThat(level).containsKeys("steadyP99Ms", "drainCpu", "steadyCpu");
        }
        assertThat(((Number) r.get("drainRatioTwoToOne")).doubleValue()).isPositive();
        assertThat(r.get("drainRatioThreeToOne")).isNull();
    }
}
