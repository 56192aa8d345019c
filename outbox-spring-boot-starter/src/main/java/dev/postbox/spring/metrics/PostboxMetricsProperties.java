package dev.postbox.spring.metrics;

import dev.postbox.spring.internal.PropertyChecks;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings under postbox.metrics.*: Micrometer metrics of the engine and its queues. */
@ConfigurationProperties("postbox.metrics")
public class PostboxMetricsProperties {

    /** Default of {@link #getQueuePollInterval()}. */
    public static final Duration DEFAULT_QUEUE_POLL_INTERVAL = Duration.ofSeconds(10);

    /** Whether to register Postbox meters when a MeterRegistry is present. */
    private boolean enabled = true;

    /**
     * How often the queue gauges (depth, oldest age, dead-letter depth, paused) are refreshed from the
     * database. One aggregate query per interval and instance, independent of the scrape rate.
     */
    private Duration queuePollInterval = DEFAULT_QUEUE_POLL_INTERVAL;

    /**
     * Whether postbox.job.duration publishes histogram buckets, so that percentiles can be
     * aggregated across instances (e.g. histogram_quantile in Prometheus).
     */
    private boolean durationHistogram = true;

    /**
     * How many tenants, the worst first (oldest due job), get their own tenant tag on
     * postbox.tenant.oldest.age; the others share the tag (other). 0: no tenant gauge.
     */
    private int tenants = DEFAULT_TENANTS;

    /** Default of {@link #getTenants()}. */
    public static final int DEFAULT_TENANTS = 10;

    public int getTenants() {
        return tenants;
    }

    public void setTenants(int tenants) {
        this.tenants = PropertyChecks.between(tenants, 0, 1000, "postbox.metrics.tenants");
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getQueuePollInterval() {
        return queuePollInterval;
    }

    public void setQueuePollInterval(Duration queuePollInterval) {
        this.queuePollInterval = PropertyChecks.positive(queuePollInterval, "postbox.metrics.queue-poll-interval");
    }

    public boolean isDurationHistogram() {
        return durationHistogram;
    }

    public void setDurationHistogram(boolean durationHistogram) {
        this.durationHistogram = durationHistogram;
    }
}
