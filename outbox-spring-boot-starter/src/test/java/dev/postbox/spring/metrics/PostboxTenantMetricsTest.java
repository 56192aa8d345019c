package dev.postbox.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.TenantStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The tenant gauge names the worst N tenants and folds the rest into one "(other)" row. */
class PostboxTenantMetricsTest {

    private static TenantStats tenant(String id, long ageSeconds) {
        return new TenantStats(id, 1, 0, Duration.ofSeconds(ageSeconds), false, null);
    }

    private static Map<String, Double> gauges(SimpleMeterRegistry registry) {
        Map<String, Double> values = new TreeMap<>();
        for (Gauge g : registry.find(PostboxMetrics.TENANT_OLDEST_AGE).gauges()) {
            values.put(g.getId().getTag("tenant"), g.value());
        }
        return values;
    }

    @Test
    void theWorstTenantsAreTaggedAndTheRestShareOneTag() {
        List<TenantStats> all = new ArrayList<>();
        all.add(new TenantStats(null, 1, 0, Duration.ofSeconds(90), false, null));
        for (int i = 0; i < 500; i++) {
            all.add(tenant("t" + i, 60 - i / 10));
        }
        List<Integer> asked = new ArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PostboxTenantMetrics metrics = new PostboxTenantMetrics(
                n -> {
                    asked.add(n);
                    return all.subList(0, Math.min(n, all.size()));
                },
                registry,
                3,
                Duration.ofSeconds(10));

        assertThat(metrics.refresh()).isTrue();

        assertThat(asked).containsExactly(4);
        assertThat(gauges(registry))
                .containsExactly(
                        Map.entry("(default)", 90.0),
                        Map.entry("(other)", 60.0),
                        Map.entry("t0", 60.0),
                        Map.entry("t1", 60.0));

        // The worst tenants change: the tags follow, their number stays bounded.
        all.subList(1, 3).clear();
        assertThat(metrics.refresh()).isTrue();
        assertThat(gauges(registry)).containsOnlyKeys("(default)", "t2", "t3", "(other)");
    }
}
