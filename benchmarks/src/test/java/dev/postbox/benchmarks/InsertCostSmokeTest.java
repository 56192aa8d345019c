package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Insert cost on tiny sizes: every index and trigger of the installed live table dropped in turn and put back. */
class InsertCostSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void measuresTheIntentWithTheFullTableAndWithEachIndexAndTriggerDropped() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = InsertCost.run(env, new InsertCost.Settings(2, 2, 0.1));
        env.write(r);
        env.writeSummary();

        List<Map<String, Object>> variants = (List<Map<String, Object>>) r.get("variants");
        assertThat(variants)
                .extracting(v -> v.get("variant"))
                .contains("full", "second row", "bare")
                .anyMatch(name -> ((String) name).startsWith("without index "));
        assertThat(((Number) r.get("fullCommitsPerSecond")).doubleValue()).isPositive();
        for (Map<String, Object> v : variants) {
            if (v.get("skipped") == null && v.get("failure") == null) {
                // two rounds each: the second finds what the first dropped put back
                assertThat((List<Double>) v.get("commitsPerSecondByRound"))
                        .as(v.get("variant").toString())
                        .hasSize(2)
                        .allMatch(rate -> rate > 0);
                assertThat(v).containsKeys("ratioToFull", "shareOfFullCommitTime");
            }
        }
        assertThat(Files.readString(results.resolve("summary.md"))).contains("insert-cost (reported)");
    }
}
