package dev.postbox.spring.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NATS relay's connection options from {@code postbox.nats.*}: conflicting or incomplete
 * settings fail with the properties named, and the credentials are really sent, against a second
 * local nats-server started with authentication on a free port.
 */
class NatsRelayConnectionOptionsTest {

    private static final String NATS_SERVER = "/usr/sbin/nats-server";
    private static final String TOKEN = "tok-" + Long.toHexString(System.nanoTime());

    @TempDir
    Path dir;

    private final List<Process> servers = new ArrayList<>();

    @AfterEach
    void stopServers() {
        servers.forEach(Process::destroy);
    }

    private static PostboxNatsProperties properties(Consumer<PostboxNatsProperties> settings) {
        PostboxNatsProperties properties = new PostboxNatsProperties();
        settings.accept(properties);
        return properties;
    }

    private static Options options(PostboxNatsProperties properties) {
        return PostboxNatsAutoConfiguration.options(properties, null, Duration.ofSeconds(5));
    }

    @Test
    void conflictingOrIncompleteSettingsFailNamingThePropertiesNeverTheSecrets() {
        assertThatThrownBy(() -> options(properties(p -> {
                    p.setUsername("relay");
                    p.setPassword("pw-9f8e");
                    p.setToken(TOKEN);
                })))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("postbox.nats.username, postbox.nats.token are set: use one way")
                .message()
                .doesNotContain("pw-9f8e")
                .doesNotContain(TOKEN);
        assertThatThrownBy(() -> options(properties(p -> p.setUsername("relay"))))
                .hasMessageContaining("postbox.nats.username is set without postbox.nats.password");
        assertThatThrownBy(() -> options(properties(p -> p.setPassword("pw-9f8e"))))
                .hasMessageContaining("postbox.nats.password is set without postbox.nats.username")
                .message()
                .doesNotContain("pw-9f8e");
        Path missing = dir.resolve("relay.creds");
        assertThatThrownBy(() -> options(properties(p -> p.setCredentialsFile(missing.toString()))))
                .hasMessageContaining(
                        "postbox.nats.credentials-file is '" + missing + "', which is not a readable file");
        assertThatThrownBy(() -> options(properties(p -> p.setNkeyFile(dir.toString()))))
                .hasMessageContaining("postbox.nats.nkey-file is '" + dir + "', which is not a readable file");
        assertThatThrownBy(() -> options(properties(p -> p.getTls().setBundle("nats"))))
                .hasMessageContaining("postbox.nats.tls.bundle is set but postbox.nats.tls.enabled is false");
        assertThatThrownBy(() -> options(properties(p -> {
                    p.getTls().setEnabled(true);
                    p.getTls().setBundle("nats");
                })))
                .hasMessageContaining("postbox.nats.tls.bundle is 'nats' but no SSL bundles are configured");
        assertThat(properties(p -> {
                            p.setUsername("relay");
                            p.setPassword("pw-9f8e");
                            p.setToken(TOKEN);
                        })
                        .toString())
                .doesNotContain("pw-9f8e")
                .doesNotContain(TOKEN);
    }

    @Test
    void tlsEnabledGivesAContextWithTheJvmTrustStore() {
        Options options = options(properties(p -> p.getTls().setEnabled(true)));
        assertThat(options.getSslContext()).isNotNull();
        assertThat(options(properties(p -> {})).getSslContext()).isNull();
    }

    @Test
    void aTokenIsSentToAServerThatRequiresIt() throws Exception {
        int port = start(List.of("--auth", TOKEN));

        try (Connection c = Nats.connect(options(properties(p -> {
            p.setServers(List.of("nats://127.0.0.1:" + port));
            p.setToken(TOKEN);
        })))) {
            assertThat(c.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
        assertThatThrownBy(() -> Nats.connect(options(properties(p -> {
                    p.setServers(List.of("nats://127.0.0.1:" + port));
                    p.setToken("wrong");
                }))))
                .isInstanceOfAny(IOException.class, io.nats.client.AuthenticationException.class);
    }

    @Test
    void anNkeySeedFileAuthenticatesAnNkeyUser() throws Exception {
        NKey user = NKey.createUser(null);
        Path config = dir.resolve("nkey.conf");
        Files.writeString(
                config,
                "authorization { users = [ { nkey: \"" + new String(user.getPublicKey()) + "\" } ] }\n",
                StandardCharsets.US_ASCII);
        Path seed = dir.resolve("relay.nk");
        Files.writeString(seed, new String(user.getSeed()), StandardCharsets.US_ASCII);
        int port = start(List.of("-c", config.toString()));

        try (Connection c = Nats.connect(options(properties(p -> {
            p.setServers(List.of("nats://127.0.0.1:" + port));
            p.setNkeyFile(seed.toString());
        })))) {
            assertThat(c.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
        Path other = dir.resolve("other.nk");
        Files.writeString(other, new String(NKey.createUser(null).getSeed()), StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> Nats.connect(options(properties(p -> {
                    p.setServers(List.of("nats://127.0.0.1:" + port));
                    p.setNkeyFile(other.toString());
                }))))
                .isInstanceOfAny(IOException.class, io.nats.client.AuthenticationException.class);
        assertThatThrownBy(() ->
                        Nats.connect(options(properties(p -> p.setServers(List.of("nats://127.0.0.1:" + port))))))
                .isInstanceOfAny(IOException.class, io.nats.client.AuthenticationException.class);
    }

    @Test
    void userAndPasswordAreSent() throws Exception {
        int port = start(List.of("--user", "relay", "--pass", "pw-9f8e"));

        try (Connection c = Nats.connect(options(properties(p -> {
            p.setServers(List.of("nats://127.0.0.1:" + port));
            p.setUsername("relay");
            p.setPassword("pw-9f8e");
        })))) {
            assertThat(c.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
        assertThatThrownBy(() ->
                        Nats.connect(options(properties(p -> p.setServers(List.of("nats://127.0.0.1:" + port))))))
                .isInstanceOfAny(IOException.class, io.nats.client.AuthenticationException.class);
    }

    /** Starts a nats-server with {@code arguments} on a free loopback port; answers the port. */
    private int start(List<String> arguments) throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(NATS_SERVER, "-a", "127.0.0.1", "-p", String.valueOf(port)));
        command.addAll(arguments);
        Process server = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats-" + port + ".log").toFile())
                .start();
        servers.add(server);
        int listening = port;
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            assertThat(server.isAlive()).as("nats-server is running").isTrue();
            try (Socket s = new Socket("127.0.0.1", listening)) {
                return true;
            }
        });
        return port;
    }
}
