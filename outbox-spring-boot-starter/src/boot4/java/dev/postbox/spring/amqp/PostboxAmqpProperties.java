package dev.postbox.spring.amqp;

import dev.postbox.JobRequest;
import dev.postbox.amqp.AmqpRelay;
import dev.postbox.spring.RetryProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.amqp.*}: the RabbitMQ relay with {@code postbox-delivery-amqp}. The
 * relay is configured when at least one destination is set; the defaults are {@code AmqpRelay}'s.
 */
@ConfigurationProperties("postbox.amqp")
public class PostboxAmqpProperties {

    /** Whether to configure the RabbitMQ relay when postbox-delivery-amqp is on the classpath. */
    private boolean enabled = true;

    /** The broker's host. */
    private String host = "localhost";

    /** The broker's AMQP port. */
    private int port = 5672;

    /** The user the relay connects as. */
    private String username = "guest";

    /** The user's password (never logged). */
    private @Nullable String password = "guest";

    /** The virtual host. */
    private String virtualHost = "/";

    /** Destinations by the name jobs use: an exchange and a routing key. */
    private Map<String, Destination> destinations = new LinkedHashMap<>();

    /** How long to wait for the broker's publisher confirm before the attempt fails. */
    private Duration confirmTimeout = AmqpRelay.DEFAULT_CONFIRM_TIMEOUT;

    /** The queue relay jobs are enqueued on. */
    private String queue = JobRequest.DEFAULT_QUEUE;

    /** Retries of failed publishes. */
    private final Retry retry = new Retry();

    /** How long the health check waits for the broker. */
    private Duration healthTimeout = Duration.ofSeconds(2);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public int getPort() {
        return port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public @Nullable String getPassword() {
        return password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public String getVirtualHost() {
        return virtualHost;
    }

    public void setVirtualHost(String virtualHost) {
        this.virtualHost = virtualHost;
    }

    public Map<String, Destination> getDestinations() {
        return destinations;
    }

    public void setDestinations(Map<String, Destination> destinations) {
        this.destinations = destinations;
    }

    public Duration getConfirmTimeout() {
        return confirmTimeout;
    }

    public void setConfirmTimeout(Duration confirmTimeout) {
        this.confirmTimeout = confirmTimeout;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public Retry getRetry() {
        return retry;
    }

    public Duration getHealthTimeout() {
        return healthTimeout;
    }

    public void setHealthTimeout(Duration healthTimeout) {
        this.healthTimeout = healthTimeout;
    }

    /** One destination: an exchange and a routing key. */
    public static class Destination {

        /** The exchange to publish to; empty for the default exchange, which routes by queue name. */
        private String exchange = "";

        /** The routing key (with the default exchange: the queue's name). */
        private String routingKey = "";

        public String getExchange() {
            return exchange;
        }

        public void setExchange(String exchange) {
            this.exchange = exchange;
        }

        public String getRoutingKey() {
            return routingKey;
        }

        public void setRoutingKey(String routingKey) {
            this.routingKey = routingKey;
        }
    }

    /** Retries of failed publishes; defaults from {@code AmqpRelay.DEFAULT_RETRY_POLICY}. */
    public static class Retry extends RetryProperties {
        public Retry() {
            super(
                    AmqpRelay.DEFAULT_RETRY_POLICY.base(),
                    AmqpRelay.DEFAULT_RETRY_POLICY.cap(),
                    AmqpRelay.DEFAULT_RETRY_POLICY.maxAttempts());
        }
    }
}
