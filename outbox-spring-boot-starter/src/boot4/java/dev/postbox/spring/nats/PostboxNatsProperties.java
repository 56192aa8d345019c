package dev.postbox.spring.nats;

import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.RelayProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.nats.*}: the NATS JetStream relay with {@code postbox-delivery-nats}.
 * The relay is configured when at least one destination is set; the defaults are {@code NatsRelay}'s.
 */
@ConfigurationProperties("postbox.nats")
public class PostboxNatsProperties extends RelayProperties<PostboxNatsProperties.Destination> {

    /** The servers to connect to (nats://host:port). */
    private List<String> servers = new ArrayList<>(List.of("nats://localhost:4222"));

    /** The user the relay connects as, if the server wants one. */
    private @Nullable String username;

    /** The user's password (never logged). */
    private @Nullable String password;

    /** How long to wait for the stream's acknowledgement before the attempt fails. */
    private Duration ackTimeout = NatsRelay.DEFAULT_ACK_TIMEOUT;

    public PostboxNatsProperties() {
        super(NatsRelay.DEFAULT_RETRY_POLICY);
    }

    @Override
    protected String prefix() {
        return "postbox.nats";
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

    public Duration getAckTimeout() {
        return ackTimeout;
    }

    public void setAckTimeout(Duration ackTimeout) {
        this.ackTimeout = ackTimeout;
    }

    /** One destination: a subject, the stream that must capture it (optional), a rate limit (optional). */
    public static class Destination extends RelayProperties.Destination {

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
}
