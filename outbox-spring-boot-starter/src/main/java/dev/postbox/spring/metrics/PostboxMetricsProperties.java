package dev.postbox.spring.metrics;

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
        if (tenants < 0 || tenants > 1000) {
            throw new IllegalArgumentException("postbox.metrics.tenants must be between 0 and 1000, was " + tenants);
        }
        this.tenants = tenants;
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
        if (queuePollInterval == null || queuePollInterval.isNegative() || queuePollInterval.isZero()) {
            throw new IllegalArgumentException(
                    "postbox.metrics.queue-poll-interval must be positive, was " + queuePollInterval);
        }
        this.queuePollInterval = queuePollInterval;
    }

    public boolean isDurationHistogram() {
        return durationHistogram;
    }

    public void setDurationHistogram(boolean durationHistogram) {
        this.durationHistogram = durationHistogram;
    }
}
