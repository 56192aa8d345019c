package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.Postbox;
import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.SecretCipher;
import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.endpoint.PostboxAdminProperties;
import dev.postbox.spring.endpoint.PostboxEndpoint;
import dev.postbox.spring.endpoint.PostboxWebhooksEndpoint;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/** Conditions, property binding and start-up registration of the webhook auto-configuration. */
@ExtendWith(OutputCaptureExtension.class)
class PostboxHttpAutoConfigurationTest {

    private static final String SECRET = WebhookSecret.generate().serialized();
    private static final String OLD_SECRET = WebhookSecret.generate().serialized();

    private final DataSource dataSource = TestDatabase.create();

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class,
                        PostboxInboxAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.worker.enabled=false",
                        "postbox.schema.initialize=never",
                        "postbox.http.secrets.keys.test=" + TEST_KEY);
    }

    /** A base64 AES-256 key for the tests (32 bytes: "0123456789abcdef" twice). */
    static final String TEST_KEY = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

    private ApplicationContextRunner runnerWithoutKeys() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues("postbox.worker.enabled=false", "postbox.schema.initialize=never");
    }

    @Test
    void endpointsFromPropertiesAreStoredEncryptedAndReencryptedThroughTheActuator(CapturedOutput output) {
        runner().withPropertyValues(
                        "postbox.http.endpoints.billing.url=https://hooks.example.com/in",
                        "postbox.http.endpoints.billing.secrets=" + SECRET,
                        "postbox.http.endpoints.billing.headers.Authorization=Bearer tok-5ea1ed")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String stored = new JdbcTemplate(dataSource)
                            .queryForObject("SELECT secrets::text || headers::text FROM outbox_endpoint", String.class);
                    assertThat(stored)
                            .doesNotContain("whsec_")
                            .doesNotContain("tok-5ea1ed")
                            .contains("enc:v2:test:");
                    Endpoint billing = context.getBean(EndpointRegistry.class)
                            .get("billing")
                            .orElseThrow();
                    assertThat(billing.secrets().get(0).serialized()).isEqualTo(SECRET);
                    assertThat(billing.headers()).containsEntry("Authorization", "Bearer tok-5ea1ed");
                });
        runner().withPropertyValues(
                        "postbox.http.secrets.keys.next=" + AesGcmSecretCipher.generateKey(),
                        "postbox.http.secrets.active-key=next")
                .run(context -> {
                    PostboxAdminProperties admin = new PostboxAdminProperties();
                    admin.setWriteEnabled(true);
                    PostboxWebhooksEndpoint endpoint =
                            new PostboxWebhooksEndpoint(context.getBean(WebhookEndpointAdmin.class), admin);
                    WebEndpointResponse<Map<String, Object>> response = endpoint.reencryptSecrets(SecurityContext.NONE);
                    assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
                    assertThat(response.getBody()).containsEntry("endpoints", 1);
                    String stored = new JdbcTemplate(dataSource)
                            .queryForObject("SELECT secrets::text || headers::text FROM outbox_endpoint", String.class);
                    assertThat(stored).contains("enc:v2:next:").doesNotContain("enc:v2:test:");
                });
        runnerWithoutKeys()
                .withPropertyValues("postbox.http.secrets.keys.next=" + TEST_KEY)
                .run(context -> {
                    PostboxAdminProperties admin = new PostboxAdminProperties();
                    admin.setWriteEnabled(true);
                    PostboxWebhooksEndpoint endpoint =
                            new PostboxWebhooksEndpoint(context.getBean(WebhookEndpointAdmin.class), admin);
                    WebEndpointResponse<Map<String, Object>> response = endpoint.reencryptSecrets(SecurityContext.NONE);
                    assertThat(response.getStatus()).isEqualTo(PostboxEndpoint.STATUS_CONFLICT);
                    assertThat(response.getBody().get("error").toString())
                            .contains("cannot be decrypted with key 'next'")
                            .doesNotContain(TEST_KEY);
                });
        assertThat(output).doesNotContain(SECRET).doesNotContain("tok-5ea1ed").doesNotContain(TEST_KEY);
    }

    @Test
    void withoutAKeySecretsAreNotStoredUnlessPlainTextIsAllowedExplicitly() {
        ApplicationContextRunner declared = runnerWithoutKeys()
                .withPropertyValues(
                        "postbox.http.endpoints.billing.url=https://hooks.example.com/in",
                        "postbox.http.endpoints.billing.secrets=" + SECRET);
        declared.run(context -> assertThat(rootMessage(context.getStartupFailure()))
                .contains("postbox.http.endpoints.billing")
                .contains("would be stored in clear")
                .contains("postbox.http.secrets.keys")
                .contains("postbox.http.secrets.allow-plaintext=true")
                .doesNotContain(SECRET));
        declared.withPropertyValues("postbox.http.secrets.allow-plaintext=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(new JdbcTemplate(dataSource)
                            .queryForObject("SELECT secrets[1] FROM outbox_endpoint", String.class))
                    .isEqualTo(SECRET);
        });
    }

    @Test
    void withKeysAStoredPlainValueIsReadOnlyWhileTheMigrationSwitchIsOn() {
        runnerWithoutKeys()
                .withPropertyValues("postbox.http.secrets.allow-plaintext=true")
                .run(context -> context.getBean(EndpointRegistry.class)
                        .register(Endpoint.builder("billing", "https://hooks.example.com/in")
                                .secret(SECRET)
                                .build()));
        runner().run(context -> {
            assertThat(((AesGcmSecretCipher) context.getBean(SecretCipher.class)).isMigratingPlaintext())
                    .isFalse();
            assertThatThrownBy(() -> context.getBean(EndpointRegistry.class).get("billing"))
                    .hasMessageContaining("Webhook endpoint 'billing', field 'signing-secret'")
                    .hasMessageContaining("postbox.http.secrets.migrate-plaintext=true")
                    .message()
                    .doesNotContain(SECRET);
        });
        runner().withPropertyValues("postbox.http.secrets.migrate-plaintext=true")
                .run(context -> {
                    EndpointRegistry registry = context.getBean(EndpointRegistry.class);
                    assertThat(registry.get("billing")
                                    .orElseThrow()
                                    .secrets()
                                    .get(0)
                                    .serialized())
                            .isEqualTo(SECRET);
                    assertThat(registry.reencryptSecrets()).isEqualTo(1);
                });
        runner().run(context -> assertThat(context.getBean(EndpointRegistry.class)
                        .get("billing")
                        .orElseThrow()
                        .secrets()
                        .get(0)
                        .serialized())
                .isEqualTo(SECRET));
    }

    @Test
    void anInvalidKeyFailsStartUpNamingTheKeyIdNeverTheKey() {
        runnerWithoutKeys()
                .withPropertyValues("postbox.http.secrets.keys.2026-01=c2hvcnQ=")
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("postbox.http.secrets: encryption key '2026-01' is 5 bytes long")
                        .doesNotContain("c2hvcnQ="));
        runnerWithoutKeys()
                .withPropertyValues(
                        "postbox.http.secrets.keys.a=" + TEST_KEY, "postbox.http.secrets.keys.b=" + TEST_KEY)
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("postbox.http.secrets.active-key is required"));
    }

    @Test
    void absentWithoutDeliveryHttp() {
        runner().withClassLoader(new FilteredClassLoader(HttpDeliveryModule.class, WebhookInbox.class))
                .withPropertyValues("postbox.inbox.secrets=" + SECRET)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(Postbox.class);
                    assertThat(context).doesNotHaveBean(HttpDeliveryModule.class);
                    assertThat(context).doesNotHaveBean(EndpointRegistry.class);
                    assertThat(context).doesNotHaveBean(Webhooks.class);
                    assertThat(context).doesNotHaveBean(WebhookEndpointAdmin.class);
                    assertThat(context).doesNotHaveBean(PostboxHttpProperties.class);
                    assertThat(context).doesNotHaveBean("postboxWebhookInbox");
                });
    }

    @Test
    void backsOffWhenDisabled() {
        runner().withPropertyValues("postbox.http.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(Postbox.class);
            assertThat(context).doesNotHaveBean(HttpDeliveryModule.class);
        });
    }

    @Test
    void providesModuleRegistryWebhooksAndInstallsTheHandlers() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            HttpDeliveryModule http = context.getBean(HttpDeliveryModule.class);
            assertThat(context.getBean(EndpointRegistry.class)).isSameAs(http.endpoints());
            assertThat(context.getBean(Webhooks.class)).isSameAs(http.webhooks());
            assertThat(context).hasSingleBean(HttpDelivery.class);
            assertThat(context).hasSingleBean(WebhookEndpointAdmin.class);
            assertThat(context).doesNotHaveBean(WebhookInbox.class);
            assertThat(http.settings().maxPayloadBytes()).isEqualTo(256 * 1024);
            assertThat(http.settings().globalRate()).isNull();
        });
    }

    @Test
    void propertiesAreBoundAndEndpointsRegistered(CapturedOutput output) {
        runner().withPropertyValues(
                        "postbox.http.allow-list=127.0.0.1/32, hooks.internal",
                        "postbox.http.https-only=false",
                        "postbox.http.max-payload-bytes=1000",
                        "postbox.http.fan-out-batch-size=7",
                        "postbox.http.global-rate-limit.rate-per-second=100",
                        "postbox.http.global-rate-limit.burst=20",
                        "postbox.http.sustained-failure.min-failures=3",
                        "postbox.http.sustained-failure.min-duration=1m",
                        "postbox.http.retry.max-attempts=4",
                        "postbox.http.endpoints.orders.url=http://127.0.0.1:${demo.port}/hooks",
                        "demo.port=8123",
                        "postbox.http.endpoints.orders.secrets[0]=" + SECRET,
                        "postbox.http.endpoints.orders.secrets[1]=" + OLD_SECRET,
                        "postbox.http.endpoints.orders.headers.X-Tenant=acme",
                        "postbox.http.endpoints.orders.rate-per-second=5",
                        "postbox.http.endpoints.orders.burst=2",
                        "postbox.http.endpoints.orders.max-in-flight=3",
                        "postbox.http.endpoints.orders.event-types=order.placed,order.paid",
                        "postbox.http.endpoints.orders.timeouts.read=2s",
                        "postbox.http.endpoints.internal.url=https://hooks.internal/x",
                        "postbox.http.endpoints.internal.secrets=" + SECRET)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    HttpDeliveryModule http = context.getBean(HttpDeliveryModule.class);
                    assertThat(http.settings().maxPayloadBytes()).isEqualTo(1000);
                    assertThat(http.settings().fanOutBatchSize()).isEqualTo(7);
                    assertThat(http.settings().globalRate()).isEqualTo(100.0);
                    assertThat(http.settings().globalBurst()).isEqualTo(20);
                    assertThat(http.settings().sustainedFailure().minFailures()).isEqualTo(3);
                    assertThat(http.settings().sustainedFailure().minDuration()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(http.deliveryRegistration().retryPolicy().maxAttempts())
                            .isEqualTo(4);

                    Endpoint orders = context.getBean(EndpointRegistry.class)
                            .get("orders")
                            .orElseThrow();
                    assertThat(orders.url()).isEqualTo("http://127.0.0.1:8123/hooks");
                    assertThat(orders.secrets())
                            .extracting(WebhookSecret::serialized)
                            .containsExactly(SECRET, OLD_SECRET);
                    assertThat(orders.headers()).containsEntry("X-Tenant", "acme");
                    assertThat(orders.ratePerSecond()).contains(5.0);
                    assertThat(orders.burst()).isEqualTo(2);
                    assertThat(orders.maxInFlight()).contains(3);
                    assertThat(orders.eventTypes()).isEqualTo(Set.of("order.placed", "order.paid"));
                    assertThat(orders.timeouts().orElseThrow().readTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(orders.timeouts().orElseThrow().connectTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(context.getBean(EndpointRegistry.class).get("internal"))
                            .isPresent();

                    assertThat(context.getBean(WebhookEndpointAdmin.class).list())
                            .extracting(WebhookEndpointAdmin.WebhookEndpointView::name)
                            .containsExactly("internal", "orders");
                });
        assertThat(output).doesNotContain(SECRET).doesNotContain(OLD_SECRET);
    }

    @Test
    void startUpUpdatesAnExistingEndpointAndKeepsItsState() {
        ApplicationContextRunner r = runner().withPropertyValues(
                        "postbox.http.allow-list=127.0.0.1/32",
                        "postbox.http.endpoints.orders.url=http://127.0.0.1:8080/a",
                        "postbox.http.endpoints.orders.secrets=" + SECRET);
        r.run(context -> context.getBean(EndpointRegistry.class).disable("orders", "maintenance"));
        r.withPropertyValues("postbox.http.endpoints.orders.url=http://127.0.0.1:8080/b")
                .run(context -> {
                    Endpoint orders = context.getBean(EndpointRegistry.class)
                            .get("orders")
                            .orElseThrow();
                    assertThat(orders.url()).endsWith("/b");
                    assertThat(orders.isEnabled()).isFalse();
                    assertThat(orders.disabledReason()).contains("maintenance");
                });
    }

    @Test
    void theEndpointAdminRotatesAndRetiresSecretsAndRefusesAnUnknownEndpoint() {
        runner().withPropertyValues(
                        "postbox.http.allow-list=127.0.0.1/32",
                        "postbox.http.endpoints.orders.url=http://127.0.0.1:8080/a",
                        "postbox.http.endpoints.orders.secrets=" + SECRET)
                .run(context -> {
                    WebhookEndpointAdmin admin = context.getBean(WebhookEndpointAdmin.class);
                    EndpointRegistry registry = context.getBean(EndpointRegistry.class);

                    String fresh = admin.rotateSecret("orders");
                    assertThat(registry.get("orders").orElseThrow().secrets())
                            .extracting(WebhookSecret::serialized)
                            .containsExactly(fresh, SECRET);
                    assertThat(admin.get("orders").orElseThrow().secrets()).isEqualTo(2);

                    assertThat(admin.retireOldSecrets("orders")).isEqualTo(1);
                    assertThat(registry.get("orders").orElseThrow().secrets())
                            .extracting(WebhookSecret::serialized)
                            .containsExactly(fresh);
                    assertThat(admin.retireOldSecrets("orders")).isZero();

                    assertThatThrownBy(() -> admin.rotateSecret("nope"))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("nope");
                    assertThatThrownBy(() -> admin.retireOldSecrets("nope"))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("nope");
                });
    }

    @Test
    void anEndpointUrlRefusedByTheSsrfGuardFailsStartUp(CapturedOutput output) {
        runner().withPropertyValues(
                        "postbox.http.endpoints.internal.url=http://10.1.2.3/hooks",
                        "postbox.http.endpoints.internal.secrets=" + SECRET)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootMessage(context.getStartupFailure()))
                            .contains("postbox.http.endpoints.internal")
                            .contains("SSRF")
                            .contains("postbox.http.allow-list");
                });
        assertThat(output).doesNotContain(SECRET);
    }

    @Test
    void anEndpointOnAnInternalServicePortFailsStartUpUnlessThePortPolicyAllowsIt() {
        ApplicationContextRunner r = runner().withPropertyValues(
                        "postbox.http.endpoints.cache.url=https://hooks.example.com:6379/hooks",
                        "postbox.http.endpoints.cache.secrets=" + SECRET);
        r.run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure()))
                    .contains("postbox.http.endpoints.cache")
                    .contains("port 6379 (Redis)")
                    .contains("remove 6379 from postbox.http.denied-ports")
                    .doesNotContain("allow-list");
        });
        r.withPropertyValues("postbox.http.denied-ports=5432").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(EndpointRegistry.class).get("cache")).isPresent();
        });
        runner().withPropertyValues(
                        "postbox.http.allowed-ports=443",
                        "postbox.http.endpoints.alt.url=https://hooks.example.com:8443/hooks",
                        "postbox.http.endpoints.alt.secrets=" + SECRET)
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("port 8443")
                        .contains("add 8443 to postbox.http.allowed-ports"));
    }

    @Test
    void urlCredentialsAndQueriesReachNoStartUpErrorLogLineOrActuatorView(CapturedOutput output) {
        runner().withPropertyValues(
                        "postbox.http.endpoints.creds.url=https://alice:pa55word@hooks.example.com/in",
                        "postbox.http.endpoints.creds.secrets=" + SECRET)
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("postbox.http.endpoints.creds")
                        .contains("carries credentials")
                        .doesNotContain("alice")
                        .doesNotContain("pa55word"));
        runner().withPropertyValues(
                        "postbox.http.endpoints.internal.url=http://10.1.2.3/in?token=t0ken",
                        "postbox.http.endpoints.internal.secrets=" + SECRET)
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("http://10.1.2.3/in?[redacted]")
                        .doesNotContain("t0ken"));
        runner().withPropertyValues(
                        "postbox.http.endpoints.unresolved.url=https://hooks.example.com/in?token=t0ken&x=${no.such.value}",
                        "postbox.http.endpoints.unresolved.secrets=" + SECRET)
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("postbox.http.endpoints.unresolved")
                        .contains("no.such.value")
                        .doesNotContain("t0ken"));
        runner().withPropertyValues(
                        "postbox.http.endpoints.queried.url=https://hooks.example.com/in?token=t0ken",
                        "postbox.http.endpoints.queried.secrets=" + SECRET)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    WebhookEndpointAdmin.WebhookEndpointView view = context.getBean(WebhookEndpointAdmin.class)
                            .get("queried")
                            .orElseThrow();
                    assertThat(view.url()).isEqualTo("https://hooks.example.com/in?[redacted]");
                    assertThat(context.getBean(PostboxHttpProperties.class)
                                    .getEndpoints()
                                    .get("queried")
                                    .toString())
                            .doesNotContain("t0ken");
                });
        assertThat(output)
                .contains("Registered webhook endpoint")
                .doesNotContain("t0ken")
                .doesNotContain("pa55word");
    }

    @Test
    void anEndpointWithoutSecretFailsStartUp() {
        runner().withPropertyValues("postbox.http.endpoints.orders.url=https://example.com/hooks")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootMessage(context.getStartupFailure()))
                            .contains("postbox.http.endpoints.orders")
                            .contains("secrets is required");
                });
    }

    @Test
    void inboxWithSecretsButNoMvcHelperOutsideWebApplications() {
        runner().withPropertyValues(
                        "postbox.inbox.secrets=" + SECRET + "," + OLD_SECRET,
                        "postbox.inbox.tolerance=1m",
                        "postbox.inbox.max-body-bytes=4096")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(WebhookInbox.class);
                    assertThat(context).doesNotHaveBean(WebhookInboxMvc.class);
                    assertThat(context.getBean(PostboxInboxProperties.class).getTolerance())
                            .isEqualTo(Duration.ofMinutes(1));
                    assertThat(context.getBean(WebhookInbox.class).maxBodyBytes())
                            .isEqualTo(4096);
                });
    }

    @Test
    void aBadInboxSecretFailsWithoutEchoingIt() {
        runner().withPropertyValues("postbox.inbox.secrets=whsec_notbase64!!").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure()))
                    .contains("postbox.inbox.secrets[0]")
                    .doesNotContain("notbase64!!");
        });
    }

    static String rootMessage(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append('\n');
        }
        return all.toString();
    }
}
