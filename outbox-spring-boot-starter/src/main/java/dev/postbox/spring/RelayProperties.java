package dev.postbox.spring;

import dev.postbox.JobRequest;
import dev.postbox.RetryPolicy;
import dev.postbox.spring.internal.PropertyChecks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * What the broker relays' settings ({@code postbox.kafka.*}, {@code postbox.amqp.*}, {@code
 * postbox.nats.*}) have in common: the switch, the destinations by name, the queue, the retries and
 * the health check's timeout. Each relay adds its connection settings and its destination's address.
 *
 * @param <D> the relay's destination settings
 */
public abstract class RelayProperties<D extends RelayProperties.Destination> {

    /** Whether to configure the relay when its module is on the classpath. */
    private boolean enabled = true;

    /** Destinations by the name jobs use. */
    private Map<String, D> destinations = new LinkedHashMap<>();

    /** The queue relay jobs are enqueued on. */
    private String queue = JobRequest.DEFAULT_QUEUE;

    /** Retries of failed publishes; the defaults are the relay's DEFAULT_RETRY_POLICY. */
    @NestedConfigurationProperty
    private final RetryProperties retry;

    /** How long the health check waits for the broker. */
    private Duration healthTimeout = Duration.ofSeconds(2);

    /** @param retryDefaults the relay's default retry policy */
    protected RelayProperties(RetryPolicy retryDefaults) {
        this.retry = new RetryProperties(retryDefaults.base(), retryDefaults.cap(), retryDefaults.maxAttempts());
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, D> getDestinations() {
        return destinations;
    }

    public void setDestinations(Map<String, D> destinations) {
        this.destinations = destinations;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = PropertyChecks.notBlank(queue, prefix() + ".queue");
    }

    public RetryProperties getRetry() {
        return retry;
    }

    public Duration getHealthTimeout() {
        return healthTimeout;
    }

    public void setHealthTimeout(Duration healthTimeout) {
        this.healthTimeout = PropertyChecks.positive(healthTimeout, prefix() + ".health-timeout");
    }

    /** The properties' prefix, for error messages: {@code postbox.kafka}. */
    protected abstract String prefix();

    /** What every destination has beside its address: a rate limit. */
    public static class Destination {

        /**
         * The most messages all processes together publish to the destination per second (a token
         * bucket shared through the database, a burst of one second's worth); 0 for no limit. The
         * rest wait, snoozed without spending an attempt.
         */
        private int maxPerSecond = 0;

        public int getMaxPerSecond() {
            return maxPerSecond;
        }

        public void setMaxPerSecond(int maxPerSecond) {
            if (maxPerSecond < 0) {
                throw new IllegalArgumentException("max-per-second of a relay destination may not be negative"
                        + " (0 means no limit), was " + maxPerSecond);
            }
            this.maxPerSecond = maxPerSecond;
        }

        /**
         * The relay's destination with this rate limit, or as it is when there is none (0).
         *
         * @param withRateLimit the destination type's {@code withRateLimit}, e.g. {@code
         *     KafkaDestination::withRateLimit}
         */
        public <T> T rateLimited(T destination, BiFunction<T, Integer, T> withRateLimit) {
            return maxPerSecond > 0 ? withRateLimit.apply(destination, maxPerSecond) : destination;
        }
    }
}
