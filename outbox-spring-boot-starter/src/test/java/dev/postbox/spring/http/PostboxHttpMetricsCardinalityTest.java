package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 12 item 15: the {@code event} tag of the fan-out counter has bounded cardinality. */
class PostboxHttpMetricsCardinalityTest {

    @Test
    void eventTypesBeyondTheBoundAreCountedAsOther() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PostboxHttpMetrics metrics = new PostboxHttpMetrics(registry, List::of, Map::of, Duration.ofMinutes(1));
        for (int i = 0; i < 1000; i++) {
            metrics.fannedOut("type-" + i, i, 2);
        }
        metrics.fannedOut("type-0", 1000, 1);
        List<Counter> counters = registry.find(PostboxHttpMetrics.FANOUT_DELIVERIES).counters().stream()
                .toList();
        assertThat(counters).hasSize(PostboxHttpMetrics.MAX_EVENT_TAGS + 1);
        assertThat(counters.stream().mapToDouble(Counter::count).sum()).isEqualTo(2001.0);
        assertThat(registry.get(PostboxHttpMetrics.FANOUT_DELIVERIES)
                        .tag("event", PostboxHttpMetrics.OTHER_EVENTS)
                        .counter()
                        .count())
                .isEqualTo(2.0 * (1000 - PostboxHttpMetrics.MAX_EVENT_TAGS));
        assertThat(registry.get(PostboxHttpMetrics.FANOUT_DELIVERIES)
                        .tag("event", "type-0")
                        .counter()
                        .count())
                .isEqualTo(3.0);
    }
}
