package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ordered scenario with tiny sizes: it runs its three parts and writes ordered.json (no measurement). */
class OrderedSmokeTest {

    @TempDir
    Path results;

    @Test
    void orderedWritesItsResult() throws Exception {
        Env env = Env.create(results);

        env.write(Ordered.run(env, new Ordered.Settings(300, 20, 2, 50, 2, 2)));

        Map<String, Object> ordered = Results.readAll(results).get(Ordered.NAME);
        assertThat(ordered).containsKeys("jobsPerSecond", "p50Ms", "p99Ms", "hotKey", "manyKeys", "hotKeys");
        assertThat(((Number) ordered.get("jobs")).longValue()).isEqualTo(300);
        @SuppressWarnings("unchecked")
        Map<String, Object> hot = (Map<String, Object>) ordered.get("hotKey");
        assertThat(hot).containsEntry("inversions", 0).containsEntry("overlaps", 0);
        for (String part : new String[] {"manyKeys", "hotKeys"}) {
            @SuppressWarnings("unchecked")
            Map<String, Object> steady = (Map<String, Object>) ordered.get(part);
            assertThat(((Number) steady.get("started")).intValue())
                    .as(part)
                    .isEqualTo(((Number) steady.get("jobs")).intValue())
                    .isPositive();
            assertThat(steady).containsEntry("overlaps", 0);
        }
    }
}
