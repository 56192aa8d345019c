package dev.postbox.spring.amqp;

import dev.postbox.amqp.AmqpRelay;
import dev.postbox.spring.RelayProperties;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings under {@code postbox.amqp.*}: the RabbitMQ relay with {@code postbox-delivery-amqp}. The
 * relay is configured when at least one destination is set; the defaults are {@code AmqpRelay}'s.
 */
@ConfigurationProperties("postbox.amqp")
public class PostboxAmqpProperties extends RelayProperties<PostboxAmqpProperties.Destination> {

    /** The broker's host. */
    private String host = "localhost";

    /** The broker's AMQP port. */
    private int port = 5672;

    /**
     * The user the relay connects as. Required, with password, unless host is localhost or a
     * loopback address (then RabbitMQ's guest/guest is used): the relay does not send guest/guest to
     * another host.
     */
    private @Nullable String username;

    /** The user's password (never logged); required with username. */
    private @Nullable String password;

    /** The virtual host. */
    private String virtualHost = "/";

    /** How long to wait for the broker's publisher confirm before the attempt fails. */
    private Duration confirmTimeout = AmqpRelay.DEFAULT_CONFIRM_TIMEOUT;

    /** TLS to the broker. */
    private final Ssl ssl = new Ssl();

    public PostboxAmqpProperties() {
        super(AmqpRelay.DEFAULT_RETRY_POLICY);
    }

    @Override
    protected String prefix() {
        return "postbox.amqp";
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

    public String getVirtualHost() {
        return virtualHost;
    }

    public void setVirtualHost(String virtualHost) {
        this.virtualHost = virtualHost;
    }

    public Duration getConfirmTimeout() {
        return confirmTimeout;
    }

    public void setConfirmTimeout(Duration confirmTimeout) {
        this.confirmTimeout = confirmTimeout;
    }

    public Ssl getSsl() {
        return ssl;
    }

    /** TLS to the broker (AMQPS, usually port 5671). */
    public static class Ssl {

        /** Whether to connect with TLS; set port to the broker's TLS port (usually 5671) too. */
        private boolean enabled = false;

        /**
         * The Spring SSL bundle (spring.ssl.bundle.jks.<name> or .pem.<name>) with the trust store,
         * and the key store for a client certificate; unset: the JVM's default trust store.
         */
        private @Nullable String bundle;

        /**
         * Whether the broker's certificate must name the host connected to. Turn off only for a
         * broker whose certificate cannot name it: the connection can then be intercepted.
         */
        private boolean verifyHostname = true;

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

        public boolean isVerifyHostname() {
            return verifyHostname;
        }

        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }
    }

    /** One destination: an exchange and a routing key, and optionally a rate limit. */
    public static class Destination extends RelayProperties.Destination {

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
}
