package dev.postbox.spring.nats;

import dev.postbox.Postbox;
import dev.postbox.PostboxListener;
import dev.postbox.nats.NatsDestination;
import dev.postbox.nats.NatsRelay;
import dev.postbox.spring.internal.BrokerDestinations;
import dev.postbox.spring.internal.ConditionalOnRelayHealth;
import dev.postbox.spring.internal.ConditionalOnRelayMetrics;
import dev.postbox.spring.internal.RelayDestinationsCondition;
import dev.postbox.spring.internal.RelayTls;
import dev.postbox.spring.metrics.BrokerRelayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    NatsRelay postboxNatsRelay(PostboxNatsProperties properties, ObjectProvider<SslBundles> sslBundles) {
        NatsRelay.Builder relay = NatsRelay.builder(options(properties, sslBundles.getIfAvailable(), null))
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

    /**
     * The connection options of {@code postbox.nats.*}: one way of authenticating (user and password,
     * token, credentials file or NKey seed file; a file must be readable), and TLS with the SSL
     * bundle's context (or the JVM's trust store).
     *
     * @throws IllegalStateException naming the properties when they conflict or a file is missing
     */
    static Options options(
            PostboxNatsProperties properties, @Nullable SslBundles sslBundles, @Nullable Duration connectTimeout) {
        Options.Builder options =
                Options.builder().servers(properties.getServers().toArray(String[]::new));
        List<String> ways = new ArrayList<>();
        String username = properties.getUsername();
        if (username != null) {
            String password = properties.getPassword();
            if (password == null) {
                throw new IllegalStateException(
                        "postbox.nats.username is set without postbox.nats.password: set the user's password");
            }
            ways.add("username");
            options.userInfo(username.toCharArray(), password.toCharArray());
        } else if (properties.getPassword() != null) {
            throw new IllegalStateException(
                    "postbox.nats.password is set without postbox.nats.username: set the user the relay connects as");
        }
        String token = properties.getToken();
        if (token != null) {
            ways.add("token");
            options.token(token.toCharArray());
        }
        String credentials = properties.getCredentialsFile();
        if (credentials != null) {
            ways.add("credentials-file");
            options.authHandler(Nats.credentials(readable(credentials, "postbox.nats.credentials-file")));
        }
        String nkey = properties.getNkeyFile();
        if (nkey != null) {
            ways.add("nkey-file");
            options.authHandler(Nats.credentials(null, readable(nkey, "postbox.nats.nkey-file")));
        }
        if (ways.size() > 1) {
            throw new IllegalStateException("postbox.nats: "
                    + String.join(
                            ", ", ways.stream().map(w -> "postbox.nats." + w).toList())
                    + " are set: use one way of authenticating");
        }
        PostboxNatsProperties.Tls tls = properties.getTls();
        if (tls.isEnabled() || tls.getBundle() != null) {
            if (!tls.isEnabled()) {
                throw new IllegalStateException("postbox.nats.tls.bundle is set but postbox.nats.tls.enabled is false:"
                        + " set postbox.nats.tls.enabled=true to connect with TLS");
            }
            options.sslContext(RelayTls.context("postbox.nats.tls", tls.getBundle(), sslBundles));
        }
        if (connectTimeout != null) {
            options.connectionTimeout(connectTimeout).maxReconnects(0);
        }
        return options.build();
    }

    /** The path of a file the relay must read, checked now so that a typo fails start-up, not every connection. */
    private static String readable(String path, String property) {
        Path file = Path.of(path);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalStateException(property + " is '" + path + "', which is not a readable file: give the"
                    + " path of the file (readable by this process)");
        }
        return file.toAbsolutePath().toString();
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
        PostboxNatsHealthIndicator postboxNatsHealthIndicator(
                PostboxNatsProperties properties, ObjectProvider<SslBundles> sslBundles) {
            return new PostboxNatsHealthIndicator(
                    options(properties, sslBundles.getIfAvailable(), properties.getHealthTimeout()),
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
