package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two small depths: claim latency and a complete drain at each, and the deepest-to-next ratio. */
class BacklogDepthSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void drainsEveryDepthAndTimesItsClaims() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = BacklogDepth.run(env, new BacklogDepth.Settings(List.of(200, 1_500), 10));

        List<Map<String, Object>> levels = (List<Map<String, Object>>) r.get("levels");
        assertThat(levels).extracting(l -> l.get("pending")).containsExactly(200, 1_500);
        for (Map<String, Object> level : levels) {
            assertThat(level.get("drainCompleted")).isEqualTo(true);
            assertThat(((Number) level.get("drainJobsPerSecond")).doubleValue()).isPositive();
            assertThat(((Number) level.get("claimP50Ms")).doubleValue()).isPositive();
        }
        assertThat(levels.get(0).get("claimBatch")).isEqualTo(200); // never more than is pending
        assertThat(((Number) r.get("drainRatioDeepestToNext")).doubleValue()).isPositive();
    }
}
