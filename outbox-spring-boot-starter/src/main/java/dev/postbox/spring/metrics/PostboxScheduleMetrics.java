package dev.postbox.spring.metrics;

import dev.postbox.cron.ScheduleMaterializer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;

/**
 * {@value PostboxMetrics#SCHEDULE_FIRES} and {@value PostboxMetrics#SCHEDULE_LAG} per schedule, fed
 * by this node's schedule materialiser after each pass commits. A fire is counted by the node that
 * materialised it, so sum the counter across instances.
 */
public class PostboxScheduleMetrics implements ScheduleMaterializer.FireListener {

    private final MeterRegistry registry;

    public PostboxScheduleMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void fired(String scheduleName, Instant fireAt, Instant materializedAt, long jobId) {
        Counter.builder(PostboxMetrics.SCHEDULE_FIRES)
                .description("Schedule fires that became jobs")
                .tag("schedule", scheduleName)
                .register(registry)
                .increment();
        Duration lag = Duration.between(fireAt, materializedAt);
        Timer.builder(PostboxMetrics.SCHEDULE_LAG)
                .description("Materialisation time minus fire instant of schedule fires")
                .tag("schedule", scheduleName)
                .register(registry)
                .record(lag.isNegative() ? Duration.ZERO : lag);
    }
}
