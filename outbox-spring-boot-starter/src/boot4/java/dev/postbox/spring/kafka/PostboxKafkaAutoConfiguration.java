package dev.postbox.spring.kafka;

import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaRelay;
import dev.postbox.kafka.KafkaSendListener;
import dev.postbox.spring.internal.BrokerDestinations;
import dev.postbox.spring.internal.ConditionalOnRelayHealth;
import dev.postbox.spring.internal.ConditionalOnRelayMetrics;
import dev.postbox.spring.internal.RelayDestinationsCondition;
import dev.postbox.spring.metrics.BrokerRelayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The Kafka relay ({@code postbox-delivery-kafka}) from {@code postbox.kafka.*}: a {@link KafkaRelay}
 * bean installed into the starter's engine, the {@code postboxKafka} health contributor, and {@link
 * PostboxKafkaMetrics} when Micrometer is present. Configured when at least one destination is set
 * under {@code postbox.kafka.destinations}; off with {@code postbox.kafka.enabled=false}.
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnClass(KafkaRelay.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnBooleanProperty(name = "postbox.kafka.enabled", matchIfMissing = true)
@Conditional(PostboxKafkaAutoConfiguration.OnKafkaDestinations.class)
@EnableConfigurationProperties(PostboxKafkaProperties.class)
public final class PostboxKafkaAutoConfiguration {

    /** The relay, closed with the context (after the engine stopped: the engine depends on it). */
    @Bean
    @ConditionalOnMissingBean
    KafkaRelay postboxKafkaRelay(PostboxKafkaProperties properties, ObjectProvider<KafkaSendListener> listeners) {
        KafkaRelay.Builder relay = KafkaRelay.builder(clientConfig(properties))
                .sendTimeout(properties.getSendTimeout())
                .maxBatchSize(properties.getMaxBatchSize())
                .queue(properties.getQueue())
                .retryPolicy(properties.getRetry().toPolicy());
        properties
                .getDestinations()
                .forEach((name, d) -> relay.destination(
                        d.rateLimited(KafkaDestination.of(name, d.getTopic()), KafkaDestination::withRateLimit)));
        listeners.ifUnique(relay::listener);
        return relay.build();
    }

    /**
     * The relay's destinations, for the start-up check of {@code @Enqueue} and {@code @OutboxEvent}
     * annotations that write its jobs (the relay bean's, also when the application defines the relay).
     */
    @Bean
    BrokerDestinations postboxKafkaDestinations(KafkaRelay relay) {
        return new BrokerDestinations(
                "Kafka",
                KafkaRelay.KIND,
                "postbox.kafka.destinations",
                "topic",
                relay.destinations().keySet());
    }

    static Map<String, Object> clientConfig(PostboxKafkaProperties properties) {
        Map<String, Object> config = new LinkedHashMap<>(properties.getProducer());
        if (!properties.getBootstrapServers().isEmpty()) {
            config.put("bootstrap.servers", String.join(",", properties.getBootstrapServers()));
        }
        return config;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnRelayMetrics
    static class Metrics {

        /** Record counts and acknowledgement times per destination, when a MeterRegistry is there. */
        @Bean
        @ConditionalOnMissingBean(KafkaSendListener.class)
        KafkaSendListener postboxKafkaMetrics(ObjectProvider<MeterRegistry> registry) {
            MeterRegistry meters = registry.getIfUnique();
            return meters == null ? KafkaSendListener.NONE : new PostboxKafkaMetrics(meters);
        }

        /** Relay jobs by destination and outcome, from the engine's events. */
        @Bean
        PostboxListener postboxKafkaRelayMetrics(ObjectProvider<MeterRegistry> registry, KafkaRelay relay) {
            return BrokerRelayMetrics.of(
                    registry.getIfUnique(),
                    "kafka",
                    KafkaRelay.KIND,
                    relay.destinations().keySet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnRelayHealth
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "postboxKafkaHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("postboxKafka")
        PostboxKafkaHealthIndicator postboxKafkaHealthIndicator(PostboxKafkaProperties properties) {
            Map<String, Object> config = new LinkedHashMap<>(clientConfig(properties));
            // Producer-only settings mean nothing to an admin client (it would log each as unknown).
            config.keySet().removeIf(PRODUCER_ONLY::contains);
            List<String> topics = properties.getDestinations().values().stream()
                    .map(PostboxKafkaProperties.Destination::getTopic)
                    .toList();
            return new PostboxKafkaHealthIndicator(config, topics, properties.getHealthTimeout());
        }

        private static final java.util.Set<String> PRODUCER_ONLY = java.util.Set.of(
                "acks",
                "linger.ms",
                "batch.size",
                "compression.type",
                "buffer.memory",
                "max.in.flight.requests.per.connection",
                "max.request.size",
                "delivery.timeout.ms",
                "max.block.ms",
                "enable.idempotence",
                "partitioner.class");
    }

    /** At least one destination under {@code postbox.kafka.destinations}. */
    static final class OnKafkaDestinations extends RelayDestinationsCondition {
        OnKafkaDestinations() {
            super("postbox.kafka");
        }
    }
}
