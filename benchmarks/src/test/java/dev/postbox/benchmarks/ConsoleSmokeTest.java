package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console scenario at a tiny volume: every page answers 200 and the result has its fields. */
class ConsoleSmokeTest {

    @TempDir
    Path results;

    @Test
    @SuppressWarnings("unchecked")
    void timesEveryPage() throws Exception {
        Env env = Env.create(results);

        Console.Volumes volumes = new Console.Volumes(3_000, 500, 300, 2);
        Map<String, Object> r = Console.run(env, volumes);

        assertThat(r).containsKeys("p50Ms", "p99Ms", "worstPageP99Ms", "allPagesWithinTarget", "pages");
        Map<String, Object> pages = (Map<String, Object>) r.get("pages");
        assertThat(pages.keySet())
                .containsExactlyElementsOf(Console.pages(volumes).keySet());
        for (Object page : pages.values()) {
            assertThat(((Number) ((Map<String, Object>) page).get("p50Ms")).doubleValue())
                    .isPositive();
        }
        assertThat(r.get("jobs")).isEqualTo((long) 2 * Console.pages(volumes).size());
    }
}
