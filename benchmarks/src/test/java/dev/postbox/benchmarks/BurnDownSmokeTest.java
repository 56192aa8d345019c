package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A 2,000-job burn-down and its files; the floor on the same size, and the ratio between them. */
class BurnDownSmokeTest {

    @TempDir
    Path results;

    @Test
    void burnDownWritesItsResultWithTheRequiredFields() throws Exception {
        Env env = Env.create(results);
        Bench.Sizes sizes = new Bench.Sizes(2_000, 500, List.of(), 0, 0, List.of(), 0, "256m", 0);

        Bench.run(env, sizes, List.of("burn-down"));

        Map<String, Map<String, Object>> all = Results.readAll(results);
        Map<String, Object> burn = all.get("burn-down");
        assertThat(burn)
                .containsKeys(
                        "scenario",
                        "jobs",
                        "seconds",
                        "jobsPerSecond",
                        "p50Ms",
                        "p99Ms",
                        "p999Ms",
                        "floorJobsPerSecond",
                        "peerJobsPerSecond",
                        "ratioToFloor",
                        "ratioToPeer",
                        "heapMaxBytes",
                        "cpuCount",
                        "postgresVersion",
                        "gitCommit");
        assertThat(((Number) burn.get("jobs")).longValue()).isEqualTo(2_000);
        assertThat(((Number) burn.get("seconds")).doubleValue()).isPositive();
        assertThat(((Number) burn.get("jobsPerSecond")).doubleValue()).isPositive();
        assertThat(((Number) burn.get("heapMaxBytes")).longValue()).isPositive();
        assertThat(((Number) burn.get("cpuCount")).intValue()).isPositive();
        assertThat((String) burn.get("postgresVersion")).isNotBlank();
        assertThat((String) burn.get("claimExplain")).contains("outbox_job", "Buffers");
        assertThat(burn.get("claimPlanUsesIndex")).isInstanceOf(Boolean.class);
        assertThat(Files.readString(results.resolve("summary.md"))).contains("| burn-down | 2,000 |");
    }

    @Test
    void floorRunsTheEnginesClaimStatementAndBurnDownIsComparedWithIt() throws Exception {
        Env env = Env.create(results);
        Bench.Sizes sizes = new Bench.Sizes(2_000, 500, List.of(), 0, 0, List.of(), 0, "256m", 0);

        Bench.run(env, sizes, List.of("burn-down", "floor"));

        Map<String, Map<String, Object>> all = Results.readAll(results);
        assertThat(((Number) all.get("floor").get("jobsPerSecond")).doubleValue())
                .isPositive();
        assertThat(((Number) all.get("burn-down").get("ratioToFloor")).doubleValue())
                .isPositive();
        assertThat(Files.readString(results.resolve("summary.md"))).contains("burn-down ≥ 0.85× the floor (issue 15)");
    }

    @Test
    void floorWithTheEnginesCompletionArchivesEveryJob() throws Exception {
        Env env = Env.create(results);
        Bench.Sizes sizes = new Bench.Sizes(2_000, 500, List.of(), 0, 0, List.of(), 0, "256m", 0);

        Bench.run(env, sizes, List.of(Floor.FINISH_NAME));

        Map<String, Object> floor = Results.readAll(results).get(Floor.FINISH_NAME);
        assertThat(((Number) floor.get("jobs")).longValue()).isEqualTo(2_000);
        assertThat(((Number) floor.get("jobsPerSecond")).doubleValue()).isPositive();
    }
}
