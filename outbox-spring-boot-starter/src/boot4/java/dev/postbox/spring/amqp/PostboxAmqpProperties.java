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

    /** The user the relay connects as. */
    private String username = "guest";

    /** The user's password (never logged). */
    private @Nullable String password = "guest";

    /** The virtual host. */
    private String virtualHost = "/";

    /** How long to wait for the broker's publisher confirm before the attempt fails. */
    private Duration confirmTimeout = AmqpRelay.DEFAULT_CONFIRM_TIMEOUT;

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

    public Duration getConfirmTimeout() {
        return confirmTimeout;
    }

    public void setConfirmTimeout(Duration confirmTimeout) {
        this.confirmTimeout = confirmTimeout;
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
