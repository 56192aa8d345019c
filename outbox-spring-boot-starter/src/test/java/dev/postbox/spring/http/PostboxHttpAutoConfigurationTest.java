package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Postbox;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.WebhookInbox;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

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
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        PostboxAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class,
                        PostboxInboxAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues("postbox.worker.enabled=false", "postbox.schema.initialize=never");
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
                        "postbox.http.endpoints.orders.url=http://127.0.0.1:1/a",
                        "postbox.http.endpoints.orders.secrets=" + SECRET);
        r.run(context -> context.getBean(EndpointRegistry.class).disable("orders", "maintenance"));
        r.withPropertyValues("postbox.http.endpoints.orders.url=http://127.0.0.1:1/b")
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
