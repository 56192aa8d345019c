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

    /**
     * The user the relay connects as, if the server wants one (with password). Use one way of
     * authenticating: username and password, token, credentials-file or nkey-file.
     */
    private @Nullable String username;

    /** The user's password (never logged); required with username. */
    private @Nullable String password;

    /** An authentication token (never logged), for a server with token authentication. */
    private @Nullable String token;

    /**
     * A NATS credentials file (.creds: the user JWT and its NKey seed), for a server with
     * decentralised JWT authentication. Read at each connection; keep it readable by this process
     * only.
     */
    private @Nullable String credentialsFile;

    /**
     * A file holding the NKey seed (SU...) of an NKey user, for a server that authenticates NKeys.
     * Keep it readable by this process only.
     */
    private @Nullable String nkeyFile;

    /** TLS to the server. */
    private final Tls tls = new Tls();

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

    public @Nullable String getToken() {
        return token;
    }

    public void setToken(@Nullable String token) {
        this.token = token;
    }

    public @Nullable String getCredentialsFile() {
        return credentialsFile;
    }

    public void setCredentialsFile(@Nullable String credentialsFile) {
        this.credentialsFile = credentialsFile;
    }

    public @Nullable String getNkeyFile() {
        return nkeyFile;
    }

    public void setNkeyFile(@Nullable String nkeyFile) {
        this.nkeyFile = nkeyFile;
    }

    public Tls getTls() {
        return tls;
    }

    /** Hides the password and token. */
    @Override
    public String toString() {
        return "PostboxNatsProperties[servers=" + servers + ", username=" + username + ", password="
                + (password == null ? null : "(hidden)") + ", token=" + (token == null ? null : "(hidden)")
                + ", credentialsFile=" + credentialsFile + ", nkeyFile=" + nkeyFile + ", tls=" + tls.isEnabled() + "]";
    }

    /** TLS to the server. */
    public static class Tls {

        /**
         * Whether to connect with TLS (servers given as tls://host:port use TLS too, with the JVM's
         * default trust store unless a bundle is named).
         */
        private boolean enabled = false;

        /**
         * The Spring SSL bundle (spring.ssl.bundle.jks.<name> or .pem.<name>) with the trust store,
         * and the key store for a client certificate; unset: the JVM's default trust store.
         */
        private @Nullable String bundle;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getBundle() {
            return bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }
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
