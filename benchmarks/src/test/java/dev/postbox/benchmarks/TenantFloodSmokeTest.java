package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tenant-flood scenario with tiny sizes: it runs, drains the flood and times the quiet tenant. */
class TenantFloodSmokeTest {

    @TempDir
    Path results;

    @Test
    void tenantFloodWritesItsResult() throws Exception {
        Env env = Env.create(results);

        env.write(TenantFlood.run(env, new TenantFlood.Settings(3_000, 20, 2)));

        Map<String, Object> flood = Results.readAll(results).get(TenantFlood.NAME);
        assertThat(flood).containsKeys("floodJobsPerSecond", "quietJobs", "p50Ms", "p99Ms", "quietMaxMs");
        assertThat(((Number) flood.get("jobs")).longValue()).isEqualTo(6_000);
        assertThat(flood.get("rounds")).isEqualTo(2);
        assertThat(((Number) flood.get("floodJobsPerSecond")).doubleValue()).isPositive();
        assertThat(((Number) flood.get("quietStarted")).intValue())
                .isEqualTo(((Number) flood.get("quietJobs")).intValue())
                .isPositive();
    }
}
