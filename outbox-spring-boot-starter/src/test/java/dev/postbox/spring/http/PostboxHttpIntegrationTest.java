package dev.postbox.spring.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.postbox.http.inbox.InboxResult;
import dev.postbox.http.inbox.WebhookInbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.endpoint.PostboxEndpointAutoConfiguration;
import dev.postbox.spring.endpoint.PostboxWebhooksEndpoint;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import dev.postbox.spring.metrics.PostboxMetricsAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A signed delivery through the starter to a local receiver that verifies it with the starter's
 * {@link WebhookInbox}; the receiver fails the first attempt, so the metrics show a 5xx retry and a
 * 2xx success; the actuator endpoint lists, disables and re-enables the endpoint.
 */
class PostboxHttpIntegrationTest {

    private static final String SECRET = WebhookSecret.generate().serialized();

    private final DataSource dataSource = TestDatabase.create();
    private HttpServer receiver;
    private final AtomicInteger requests = new AtomicInteger();
    private final List<InboxResult> results = new CopyOnWriteArrayList<>();
    private final Map<String, String> applied = new ConcurrentHashMap<>();
    private volatile WebhookInbox inbox;

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hooks", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int status;
            if (requests.incrementAndGet() == 1) {
                status = 503;
            } else {
                InboxResult result = inbox.receive(
                        exchange.getRequestHeaders()::getFirst,
                        body,
                        message -> applied.put(message.messageId(), message.bodyText()));
                results.add(result);
                status = result.httpStatus();
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
        TestDatabase.drop(dataSource);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        BootAutoConfigurations.METRICS,
                        BootAutoConfigurations.SIMPLE_METRICS_EXPORT,
                        BootAutoConfigurations.COMPOSITE_METER_REGISTRY,
                        PostboxAutoConfiguration.class,
                        PostboxMetricsAutoConfiguration.class,
                        PostboxEndpointAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class,
                        PostboxHttpMetricsAutoConfiguration.class,
                        PostboxInboxAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues(
                        "postbox.schema.initialize=never",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.worker.shutdown-grace=2s",
                        "postbox.metrics.queue-poll-interval=200ms",
                        "postbox.admin.write-enabled=true",
                        "management.endpoints.web.exposure.include=postbox,postboxwebhooks",
                        "postbox.http.secrets.keys.test=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                        "postbox.http.allow-list=127.0.0.1/32",
                        "postbox.http.retry.base=50ms",
                        "postbox.http.retry.cap=200ms",
                        "postbox.http.endpoints.receiver.url=http://127.0.0.1:"
                                + receiver.getAddress().getPort() + "/hooks",
                        "postbox.http.endpoints.receiver.secrets=" + SECRET,
                        "postbox.inbox.secrets=" + SECRET);
    }

    @Test
    void aSignedDeliveryArrivesOnceAndTheMetricsMove() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            inbox = context.getBean(WebhookInbox.class);
            Webhooks webhooks = context.getBean(Webhooks.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            tx.executeWithoutResult(status -> {
                new JdbcTemplate(dataSource).execute("SELECT 1");
                webhooks.send("receiver", Map.of("order", 42), "order-42");
            });

            // the receiver records the result after the effect is applied: wait for both
            await().atMost(Duration.ofSeconds(20)).until(() -> applied.size() == 1 && !results.isEmpty());
            assertThat(applied).containsOnlyKeys("receiver:order-42");
            assertThat(applied.get("receiver:order-42")).contains("\"order\"").contains("42");
            assertThat(results).extracting(InboxResult::outcome).containsExactly(InboxResult.Outcome.APPLIED);

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(meters.find(PostboxHttpMetrics.DELIVERIES)
                                    .tags("endpoint", "receiver", "outcome", "done", "status", "2xx")
                                    .counter())
                            .isNotNull()
                            .satisfies(c -> assertThat(c.count()).isEqualTo(1.0)));
            assertThat(meters.get(PostboxHttpMetrics.DELIVERIES)
                            .tags("endpoint", "receiver", "outcome", "retry", "status", "5xx")
                            .counter()
                            .count())
                    .isEqualTo(1.0);
            assertThat(meters.get(PostboxHttpMetrics.DELIVERY_DURATION)
                            .tags("endpoint", "receiver")
                            .timers())
                    .hasSize(2);
            assertThat(meters.get(PostboxHttpMetrics.ENDPOINT_DISABLED)
                            .tag("endpoint", "receiver")
                            .gauge()
                            .value())
                    .isZero();

            // The admin endpoint: list, disable (gauge 1), re-enable (gauge 0).
            PostboxWebhooksEndpoint endpoint = context.getBean(PostboxWebhooksEndpoint.class);
            List<WebhookEndpointAdmin.WebhookEndpointView> list = endpoint.endpoints(null);
            assertThat(list).singleElement().satisfies(v -> {
                assertThat(v.name()).isEqualTo("receiver");
                assertThat(v.state()).isEqualTo("enabled");
                assertThat(v.secrets()).isEqualTo(1);
            });
            assertThat(list.toString()).doesNotContain(SECRET);

            WebEndpointResponse<Map<String, Object>> disabled =
                    endpoint.enabled("receiver", false, "maintenance", null, SecurityContext.NONE);
            assertThat(disabled.getStatus()).isEqualTo(200);
            assertThat(disabled.getBody()).containsEntry("changed", true);
            assertThat(endpoint.endpoint("receiver", null))
                    .extracting(WebhookEndpointAdmin.WebhookEndpointView::disabledReason)
                    .isEqualTo("maintenance");
            assertThat(meters.get(PostboxHttpMetrics.ENDPOINT_DISABLED)
                            .tag("endpoint", "receiver")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            assertThat(meters.get(PostboxHttpMetrics.ENDPOINT_DISABLE_EVENTS)
                            .tags("endpoint", "receiver", "cause", "operator")
                            .counter()
                            .count())
                    .isEqualTo(1.0);

            WebEndpointResponse<Map<String, Object>> enabled =
                    endpoint.enabled("receiver", true, null, null, SecurityContext.NONE);
            assertThat(enabled.getStatus()).isEqualTo(200);
            assertThat(enabled.getBody()).containsEntry("changed", true);
            assertThat(meters.get(PostboxHttpMetrics.ENDPOINT_DISABLED)
                            .tag("endpoint", "receiver")
                            .gauge()
                            .value())
                    .isZero();

            assertThat(endpoint.enabled("nope", true, null, null, SecurityContext.NONE)
                            .getStatus())
                    .isEqualTo(404);
        });
    }
}
