package dev.postbox.spring.nats;

import dev.postbox.JobRequest;
import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.RetryProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.nats.*}: the NATS JetStream relay with {@code postbox-delivery-nats}.
 * The relay is configured when at least one destination is set; the defaults are {@code NatsRelay}'s.
 */
@ConfigurationProperties("postbox.nats")
public class PostboxNatsProperties {

    /** Whether to configure the NATS relay when postbox-delivery-nats is on the classpath. */
    private boolean enabled = true;

    /** The servers to connect to (nats://host:port). */
    private List<String> servers = new ArrayList<>(List.of("nats://localhost:4222"));

    /** The user the relay connects as, if the server wants one. */
    private @Nullable String username;

    /** The user's password (never logged). */
    private @Nullable String password;

    /** Destinations by the name jobs use: a subject and optionally the stream that must capture it. */
    private Map<String, Destination> destinations = new LinkedHashMap<>();

    /** How long to wait for the stream's acknowledgement before the attempt fails. */
    private Duration ackTimeout = NatsRelay.DEFAULT_ACK_TIMEOUT;

    /** The queue relay jobs are enqueued on. */
    private String queue = JobRequest.DEFAULT_QUEUE;

    /** Retries of failed publishes. */
    private final Retry retry = new Retry();

    /** How long the health check waits for the server. */
    private Duration healthTimeout = Duration.ofSeconds(2);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getServers() {
        return servers;
    }

    public void setServers(List<String> servers) {
        this.servers = servers;
    }

    public @Nullable String getUsername() {
        return username;
    }

    public void setUsername(@Nullable String username) {
        this.username = username;
    }

    public @Nullable String getPassword() {
        return password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public Map<String, Destination> getDestinations() {
        return destinations;
    }

    public void setDestinations(Map<String, Destination> destinations) {
        this.destinations = destinations;
    }

    public Duration getAckTimeout() {
        return ackTimeout;
    }

    public void setAckTimeout(Duration ackTimeout) {
        this.ackTimeout = ackTimeout;
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

    /** One destination: a subject, and the stream that must capture it (optional). */
    public static class Destination {

        /** The subject to publish to (no wildcards). */
        private String subject = "";

        /** The stream that must capture the subject; unset to accept any stream. */
        private @Nullable String expectedStream;

        public String getSubject() {
            return subject;
        }

        public void setSubject(String subject) {
            this.subject = subject;
        }

        public @Nullable String getExpectedStream() {
            return expectedStream;
        }

        public void setExpectedStream(@Nullable String expectedStream) {
            this.expectedStream = expectedStream;
        }
    }

    /** Retries of failed publishes; defaults from {@code NatsRelay.DEFAULT_RETRY_POLICY}. */
    public static class Retry extends RetryProperties {
        public Retry() {
            super(
                    NatsRelay.DEFAULT_RETRY_POLICY.base(),
                    NatsRelay.DEFAULT_RETRY_POLICY.cap(),
                    NatsRelay.DEFAULT_RETRY_POLICY.maxAttempts());
        }
    }
}
