package dev.postbox.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The RabbitMQ relay's connection factory from {@code postbox.amqp.*}: RabbitMQ's guest/guest only
 * for a loopback host, explicit credentials otherwise, and TLS that is really used.
 */
class AmqpRelayConnectionFactoryTest {

    private static PostboxAmqpProperties properties(Consumer<PostboxAmqpProperties> settings) {
        PostboxAmqpProperties properties = new PostboxAmqpProperties();
        settings.accept(properties);
        return properties;
    }

    private static ConnectionFactory factory(PostboxAmqpProperties properties) {
        return PostboxAmqpAutoConfiguration.connectionFactory(properties, null);
    }

    @Test
    void aRemoteHostWithoutCredentialsFailsNamingTheProperties() {
        assertThatThrownBy(() -> factory(properties(p -> p.setHost("rabbit.internal.example"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(
                        "postbox.amqp.host is 'rabbit.internal.example' but no credentials are configured")
                .hasMessageContaining("postbox.amqp.username and postbox.amqp.password")
                .hasMessageContaining("guest/guest is used only for localhost");
        assertThatThrownBy(() -> factory(properties(p -> {
                    p.setHost("rabbit.internal.example");
                    p.setUsername("relay");
                })))
                .hasMessageContaining("postbox.amqp.username is set without postbox.amqp.password");
        assertThatThrownBy(() -> factory(properties(p -> p.setPassword("pw-2c1d"))))
                .hasMessageContaining("postbox.amqp.password is set without postbox.amqp.username")
                .message()
                .doesNotContain("pw-2c1d");
    }

    @Test
    void explicitCredentialsAreUsedAndGuestOnlyForLoopbackHosts() {
        ConnectionFactory remote = factory(properties(p -> {
            p.setHost("rabbit.internal.example");
            p.setUsername("relay");
            p.setPassword("pw-2c1d");
        }));
        assertThat(remote.getUsername()).isEqualTo("relay");
        assertThat(remote.getPassword()).isEqualTo("pw-2c1d");
        for (String loopback : new String[] {"localhost", "127.0.0.1", "::1", "[::1]"}) {
            ConnectionFactory local = factory(properties(p -> p.setHost(loopback)));
            assertThat(local.getUsername()).isEqualTo("guest");
            assertThat(local.getPassword()).isEqualTo("guest");
        }
    }

    @Test
    void theLocalBrokerIsReachedWithTheDefaultsAndTlsIsReallyUsedWhenEnabled() throws Exception {
        try (Connection c = factory(properties(p -> p.setHost("127.0.0.1"))).newConnection()) {
            assertThat(c.isOpen()).isTrue();
        }
        ConnectionFactory tls = factory(properties(p -> {
            p.setHost("127.0.0.1");
            p.getSsl().setEnabled(true);
        }));
        assertThat(tls.isSSL()).isTrue();
        tls.setConnectionTimeout(5_000);
        tls.setHandshakeTimeout(5_000);
        // The local broker speaks plain AMQP on 5672: a TLS client cannot complete its handshake there.
        assertThatThrownBy(tls::newConnection).isInstanceOf(Exception.class);
    }

    @Test
    void tlsSettingsWithoutTlsEnabledOrAnUnknownBundleFailNamingTheProperty() {
        assertThatThrownBy(() -> factory(properties(p -> p.getSsl().setBundle("rabbit"))))
                .hasMessageContaining("postbox.amqp.ssl.bundle is set but postbox.amqp.ssl.enabled is false");
        assertThatThrownBy(() -> factory(properties(p -> p.getSsl().setVerifyHostname(false))))
                .hasMessageContaining("postbox.amqp.ssl.verify-hostname is set but postbox.amqp.ssl.enabled is false");
        assertThatThrownBy(() -> factory(properties(p -> {
                    p.getSsl().setEnabled(true);
                    p.getSsl().setBundle("rabbit");
                })))
                .hasMessageContaining("postbox.amqp.ssl.bundle is 'rabbit' but no SSL bundles are configured");
    }
}
