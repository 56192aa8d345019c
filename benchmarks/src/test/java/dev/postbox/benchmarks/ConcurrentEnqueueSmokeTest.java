package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A second-long concurrent-enqueue run: every variant commits, and the result carries the ratios. */
class ConcurrentEnqueueSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void concurrentEnqueueWritesTheCommitRatesOfEveryVariantAndTheirRatios() throws Exception {
        Env env = Env.create(results);
        Map<String, Object> r = ConcurrentEnqueue.run(env, new ConcurrentEnqueue.Settings(List.of(2), 1, 0.3, 0.3));
        env.write(r);
        env.writeSummary();

        List<Map<String, Object>> levels = (List<Map<String, Object>>) r.get("levels");
        assertThat(levels).hasSize(1);
        Map<String, Object> level = levels.get(0);
        assertThat(level.get("producers")).isEqualTo(2);
        for (String variant : List.of("bare", "intent", "trigger", "secondRow")) {
            assertThat(((Number) level.get(variant + "Commits")).longValue())
                    .as(variant)
                    .isPositive();
            assertThat((List<?>) level.get(variant + "LoadAverages")).hasSize(1);
        }
        assertThat(((Number) level.get("intentRatio")).doubleValue()).isPositive();
        assertThat(((Number) level.get("triggerRatio")).doubleValue()).isPositive();
        assertThat(((Number) level.get("secondRowRatio")).doubleValue()).isPositive();
        assertThat(((Number) level.get("intentToSecondRowRatio")).doubleValue()).isPositive();
        assertThat(Files.readString(results.resolve("summary.md")))
                .contains("| concurrent-enqueue |")
                .contains("concurrent enqueue, 2 producers: commits with one intent ≥ 0.8× without");
    }
}
