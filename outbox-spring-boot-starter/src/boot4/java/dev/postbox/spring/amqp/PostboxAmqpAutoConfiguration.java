package dev.postbox.spring.amqp;

import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.amqp.AmqpDestination;
import dev.postbox.amqp.AmqpRelay;
import dev.postbox.spring.internal.BrokerDestinations;
import dev.postbox.spring.internal.ConditionalOnRelayHealth;
import dev.postbox.spring.internal.ConditionalOnRelayMetrics;
import dev.postbox.spring.internal.RelayDestinationsCondition;
import dev.postbox.spring.internal.RelayTls;
import dev.postbox.spring.metrics.BrokerRelayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The RabbitMQ relay ({@code postbox-delivery-amqp}) from {@code postbox.amqp.*}: an {@link AmqpRelay}
 * bean installed into the starter's engine, the {@code postboxAmqp} health contributor, and relay
 * metrics per destination when Micrometer is present. Configured when at least one destination is
 * set under {@code postbox.amqp.destinations}; off with {@code postbox.amqp.enabled=false}.
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnClass(AmqpRelay.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnBooleanProperty(name = "postbox.amqp.enabled", matchIfMissing = true)
@Conditional(PostboxAmqpAutoConfiguration.OnAmqpDestinations.class)
@EnableConfigurationProperties(PostboxAmqpProperties.class)
public final class PostboxAmqpAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    AmqpRelay postboxAmqpRelay(PostboxAmqpProperties properties, ObjectProvider<SslBundles> sslBundles) {
        AmqpRelay.Builder relay = AmqpRelay.builder(connectionFactory(properties, sslBundles.getIfAvailable()))
                .confirmTimeout(properties.getConfirmTimeout())
                .queue(properties.getQueue())
                .retryPolicy(properties.getRetry().toPolicy());
        properties
                .getDestinations()
                .forEach((name, d) -> relay.destination(d.rateLimited(
                        AmqpDestination.of(name, d.getExchange(), d.getRoutingKey()), AmqpDestination::withRateLimit)));
        return relay.build();
    }

    /**
     * The relay's destinations, for the start-up check of {@code @Enqueue} and {@code @OutboxEvent}
     * annotations that write its jobs (the relay bean's, also when the application defines the relay).
     */
    @Bean
    BrokerDestinations postboxAmqpDestinations(AmqpRelay relay) {
        return new BrokerDestinations(
                "AMQP",
                AmqpRelay.KIND,
                "postbox.amqp.destinations",
                "routing-key",
                relay.destinations().keySet());
    }

    /**
     * The connection factory of {@code postbox.amqp.*}. Credentials: the configured ones; RabbitMQ's
     * guest/guest only for a loopback host, otherwise start-up fails naming the properties. TLS: the
     * SSL bundle's context (or the JVM's trust store), with hostname verification unless turned off.
     */
    static ConnectionFactory connectionFactory(PostboxAmqpProperties properties, @Nullable SslBundles sslBundles) {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(properties.getHost());
        factory.setPort(properties.getPort());
        String username = properties.getUsername();
        String password = properties.getPassword();
        if (username == null) {
            if (password != null) {
                throw new IllegalStateException("postbox.amqp.password is set without postbox.amqp.username: set the"
                        + " user the relay connects as");
            }
            if (!RelayTls.isLoopback(properties.getHost())) {
                throw new IllegalStateException("postbox.amqp.host is '" + properties.getHost() + "' but no"
                        + " credentials are configured: set postbox.amqp.username and postbox.amqp.password (RabbitMQ's"
                        + " default guest/guest is used only for localhost)");
            }
            username = ConnectionFactory.DEFAULT_USER;
            password = ConnectionFactory.DEFAULT_PASS;
        } else if (password == null) {
            throw new IllegalStateException(
                    "postbox.amqp.username is set without postbox.amqp.password: set the user's password");
        }
        factory.setUsername(username);
        factory.setPassword(password);
        factory.setVirtualHost(properties.getVirtualHost());
        PostboxAmqpProperties.Ssl ssl = properties.getSsl();
        if (ssl.isEnabled()) {
            factory.useSslProtocol(RelayTls.context("postbox.amqp.ssl", ssl.getBundle(), sslBundles));
            if (ssl.isVerifyHostname()) {
                factory.enableHostnameVerification();
            }
        } else if (ssl.getBundle() != null || !ssl.isVerifyHostname()) {
            throw new IllegalStateException(
                    "postbox.amqp.ssl." + (ssl.getBundle() != null ? "bundle" : "verify-hostname")
                            + " is set but postbox.amqp.ssl.enabled is false: set postbox.amqp.ssl.enabled=true to connect"
                            + " with TLS");
        }
        return factory;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnRelayMetrics
    static class Metrics {

        /** Relay jobs by destination and outcome, from the engine's events. */
        @Bean
        PostboxListener postboxAmqpRelayMetrics(ObjectProvider<MeterRegistry> registry, AmqpRelay relay) {
            return BrokerRelayMetrics.of(
                    registry.getIfUnique(),
                    "amqp",
                    AmqpRelay.KIND,
                    relay.destinations().keySet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnRelayHealth
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "postboxAmqpHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("postboxAmqp")
        PostboxAmqpHealthIndicator postboxAmqpHealthIndicator(
                PostboxAmqpProperties properties, ObjectProvider<SslBundles> sslBundles) {
            ConnectionFactory factory = connectionFactory(properties, sslBundles.getIfAvailable());
            int timeout = (int) Math.max(1, properties.getHealthTimeout().toMillis());
            factory.setConnectionTimeout(timeout);
            factory.setHandshakeTimeout(timeout);
            factory.setAutomaticRecoveryEnabled(false);
            return new PostboxAmqpHealthIndicator(
                    factory,
                    properties.getDestinations().values().stream()
                            .map(PostboxAmqpProperties.Destination::getExchange)
                            .toList());
        }
    }

    /** At least one destination under {@code postbox.amqp.destinations}. */
    static final class OnAmqpDestinations extends RelayDestinationsCondition {
        OnAmqpDestinations() {
            super("postbox.amqp");
        }
    }
}
