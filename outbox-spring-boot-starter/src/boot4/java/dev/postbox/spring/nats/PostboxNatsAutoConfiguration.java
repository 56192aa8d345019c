package dev.postbox.spring.nats;

import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.nats.NatsDestination;
import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.internal.BrokerDestinations;
import dev.postbox.spring.internal.ConditionalOnRelayHealth;
import dev.postbox.spring.internal.ConditionalOnRelayMetrics;
import dev.postbox.spring.internal.RelayDestinationsCondition;
import dev.postbox.spring.metrics.BrokerRelayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Options;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The NATS JetStream relay ({@code postbox-delivery-nats}) from {@code postbox.nats.*}: a {@link
 * NatsRelay} bean installed into the starter's engine, the {@code postboxNats} health contributor,
 * and relay metrics per destination when Micrometer is present. Configured when at least one
 * destination is set under {@code postbox.nats.destinations}; off with {@code
 * postbox.nats.enabled=false}.
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnClass(NatsRelay.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnBooleanProperty(name = "postbox.nats.enabled", matchIfMissing = true)
@Conditional(PostboxNatsAutoConfiguration.OnNatsDestinations.class)
@EnableConfigurationProperties(PostboxNatsProperties.class)
public final class PostboxNatsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    NatsRelay postboxNatsRelay(PostboxNatsProperties properties) {
        NatsRelay.Builder relay = NatsRelay.builder(options(properties, null))
                .ackTimeout(properties.getAckTimeout())
                .queue(properties.getQueue())
                .retryPolicy(properties.getRetry().toPolicy());
        properties.getDestinations().forEach((name, d) -> {
            String stream = d.getExpectedStream();
            NatsDestination destination = stream == null
                    ? NatsDestination.of(name, d.getSubject())
                    : NatsDestination.of(name, d.getSubject(), stream);
            relay.destination(d.rateLimited(destination, NatsDestination::withRateLimit));
        });
        return relay.build();
    }

    /**
     * The relay's destinations, for the start-up check of {@code @Enqueue} and {@code @OutboxEvent}
     * annotations that write its jobs (the relay bean's, also when the application defines the relay).
     */
    @Bean
    BrokerDestinations postboxNatsDestinations(NatsRelay relay) {
        return new BrokerDestinations(
                "NATS",
                NatsRelay.KIND,
                "postbox.nats.destinations",
                "subject",
                relay.destinations().keySet());
    }

    static Options options(PostboxNatsProperties properties, @Nullable Duration connectTimeout) {
        Options.Builder options =
                Options.builder().servers(properties.getServers().toArray(String[]::new));
        if (properties.getUsername() != null) {
            String password = properties.getPassword();
            options.userInfo(properties.getUsername(), password == null ? "" : password);
        }
        if (connectTimeout != null) {
            options.connectionTimeout(connectTimeout).maxReconnects(0);
        }
        return options.build();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnRelayMetrics
    static class Metrics {

        /** Relay jobs by destination and outcome, from the engine's events. */
        @Bean
        PostboxListener postboxNatsRelayMetrics(ObjectProvider<MeterRegistry> registry, NatsRelay relay) {
            return BrokerRelayMetrics.of(
                    registry.getIfUnique(),
                    "nats",
                    NatsRelay.KIND,
                    relay.destinations().keySet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnRelayHealth
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "postboxNatsHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("postboxNats")
        PostboxNatsHealthIndicator postboxNatsHealthIndicator(PostboxNatsProperties properties) {
            return new PostboxNatsHealthIndicator(
                    options(properties, properties.getHealthTimeout()),
                    properties.getDestinations().values().stream()
                            .map(PostboxNatsProperties.Destination::getSubject)
                            .toList());
        }
    }

    /** At least one destination under {@code postbox.nats.destinations}. */
    static final class OnNatsDestinations extends RelayDestinationsCondition {
        OnNatsDestinations() {
            super("postbox.nats");
        }
    }
}
