package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory scenario's child JVM on 2,000 jobs: it drains them all and reports its heap. */
class MemorySmokeTest {

    @TempDir
    Path results;

    @Test
    void theChildJvmDrainsEveryJobAndReportsItsPeakHeap() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = Memory.run(env, 2_000, "128m");

        assertThat(r.get("completed")).as("%s", r.get("childFailure")).isEqualTo(true);
        assertThat(r.get("childExitCode")).isEqualTo(0);
        assertThat(r.get("jobsLeft")).isEqualTo(0L);
        assertThat(((Number) r.get("peakHeapUsedMiB")).doubleValue()).isPositive();
        assertThat(((Number) r.get("heapMaxBytes")).longValue()).isLessThanOrEqualTo(128L * 1024 * 1024);
    }
}
