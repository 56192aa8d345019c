package dev.postbox.spring.health;

import dev.postbox.spring.internal.PropertyChecks;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.health.*}: when the {@code postbox} health contributor stops
 * reporting {@code UP}. Switch the contributor off with management.health.postbox.enabled=false.
 */
@ConfigurationProperties("postbox.health")
public class PostboxHealthProperties {

    /** Default of {@link #getOldestAgeThreshold()}. */
    public static final Duration DEFAULT_OLDEST_AGE_THRESHOLD = Duration.ofMinutes(5);

    /** Default of {@link #getDlqThreshold()}. */
    public static final long DEFAULT_DLQ_THRESHOLD = 100;

    /** Default of postbox.health.degraded-status. */
    public static final String DEFAULT_DEGRADED_STATUS = "OUT_OF_SERVICE";

    /**
     * The SLO: when the oldest claimable job of any queue has been due for longer than this, the
     * contributor reports postbox.health.degraded-status.
     */
    private Duration oldestAgeThreshold = DEFAULT_OLDEST_AGE_THRESHOLD;

    /**
     * When the number of dead letters (all queues) is above this, the contributor reports
     * postbox.health.degraded-status. Dead letters stay until replayed or purged.
     */
    private long dlqThreshold = DEFAULT_DLQ_THRESHOLD;

    /**
     * The status reported when a threshold is crossed, e.g. OUT_OF_SERVICE, DOWN or a
     * custom code such as DEGRADED (map custom codes with
     * management.endpoint.health.status.order and http-mapping). An unreachable database is
     * always DOWN.
     */
    private String degradedStatus = DEFAULT_DEGRADED_STATUS;

    public Duration getOldestAgeThreshold() {
        return oldestAgeThreshold;
    }

    public void setOldestAgeThreshold(Duration oldestAgeThreshold) {
        this.oldestAgeThreshold = PropertyChecks.notNegative(oldestAgeThreshold, "postbox.health.oldest-age-threshold");
    }

    public long getDlqThreshold() {
        return dlqThreshold;
    }

    public void setDlqThreshold(long dlqThreshold) {
        this.dlqThreshold = PropertyChecks.notNegative(dlqThreshold, "postbox.health.dlq-threshold");
    }

    public String getDegradedStatus() {
        return degradedStatus;
    }

    public void setDegradedStatus(String degradedStatus) {
        this.degradedStatus = PropertyChecks.notBlank(degradedStatus, "postbox.health.degraded-status");
    }
}
