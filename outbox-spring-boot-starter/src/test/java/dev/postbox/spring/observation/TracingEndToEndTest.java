package dev.postbox.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.RetryPolicy;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.BootAutoConfigurations;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.http.PostboxHttpAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * One trace from an incoming HTTP request (Spring MVC, observed by Spring's {@code
 * ServerHttpObservationFilter}) through the enqueue of a job, its handler (a failed attempt and its
 * retry) and the webhook the handler sends, to the receiver: the receiver sees the request's trace
 * id, every span Postbox made is in that trace, each with the parent the propagation promises. Real
 * PostgreSQL, a real HTTP receiver, the OpenTelemetry SDK with its in-memory exporter.
 */
class TracingEndToEndTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String INCOMING = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    private final DataSource dataSource = TestDatabase.create();
    private final TestTracing tracing = new TestTracing();
    private final List<Headers> received = new CopyOnWriteArrayList<>();
    private final List<String> handlerSaw = new CopyOnWriteArrayList<>();
    private final AtomicInteger shipAttempts = new AtomicInteger();
    private final AtomicReference<Webhooks> webhooks = new AtomicReference<>();
    private HttpServer receiver;

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hooks", exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.add(exchange.getRequestHeaders());
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
        tracing.close();
        TestDatabase.drop(dataSource);
    }

    /** The application's controller: places an order and enqueues its shipping in the same transaction. */
    @RestController
    static final class Orders {
        private final Outbox outbox;
        private final TransactionTemplate tx;

        Orders(Outbox outbox, PlatformTransactionManager transactions) {
            this.outbox = outbox;
            this.tx = new TransactionTemplate(transactions);
        }

        @PostMapping("/orders")
        String place() {
            tx.executeWithoutResult(s -> outbox.enqueue(JobRequest.of("ship-order", Map.of("order", 42))));
            return "placed";
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootAutoConfigurations.TRANSACTION,
                        PostboxObservationAutoConfiguration.class,
                        PostboxAutoConfiguration.class,
                        PostboxHttpAutoConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withBean(ObservationRegistry.class, () -> tracing.registry)
                // The handler fails its first attempt; its retry sends a webhook (in its transaction).
                .withBean(
                        HandlerRegistration.class,
                        () -> HandlerRegistration.of("ship-order", job -> {
                                    handlerSaw.add(
                                            job.attempt() + " " + job.headers().get("traceparent") + " tenant="
                                                    + tracing.tracer
                                                            .getBaggage("tenant")
                                                            .get());
                                    if (shipAttempts.incrementAndGet() == 1) {
                                        throw new IllegalStateException("carrier busy");
                                    }
                                    webhooks.get().send("receiver", Map.of("shipped", 42), "shipped-42");
                                })
                                .transactional()
                                .retryPolicy(RetryPolicy.custom()
                                        .base(Duration.ofMillis(20))
                                        .cap(Duration.ofMillis(50))
                                        .maxAttempts(3)
                                        .build()))
                .withBean(Orders.class)
                .withPropertyValues(
                        "postbox.schema.initialize=never",
                        "postbox.worker.poll-interval=100ms",
                        "postbox.worker.shutdown-grace=2s",
                        "postbox.http.allow-list=127.0.0.1/32",
                        "postbox.http.secrets.keys.test=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                        "postbox.http.endpoints.receiver.url=http://127.0.0.1:"
                                + receiver.getAddress().getPort() + "/hooks",
                        "postbox.http.endpoints.receiver.secrets="
                                + WebhookSecret.generate().serialized());
    }

    @Test
    void oneTraceRunsFromTheIncomingRequestThroughTheJobAndItsRetryToTheWebhookReceiver() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            webhooks.set(context.getBean(Webhooks.class));
            MockMvc mvc = MockMvcBuilders.standaloneSetup(context.getBean(Orders.class))
                    .addFilters(new ServerHttpObservationFilter(tracing.registry))
                    .build();

            mvc.perform(post("/orders").header("traceparent", INCOMING).header("baggage", "tenant=acme"))
                    .andExpect(status().isOk());
            await().atMost(Duration.ofSeconds(30)).until(() -> !received.isEmpty());
            // The send's span ends after the receiver answered.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> spanNamed("webhook receiver").isPresent());

            List<SpanData> spans = tracing.spans.getFinishedSpanItems();
            assertThat(spans)
                    .as("every span is in the incoming request's trace: %s", describe(spans))
                    .allSatisfy(span -> assertThat(span.getTraceId()).isEqualTo(TRACE_ID));

            SpanData server = spans.stream()
                    .filter(span -> span.getKind() == SpanKind.SERVER)
                    .findFirst()
                    .orElseThrow();
            SpanData enqueue = spanNamed("enqueue ship-order").orElseThrow();
            List<SpanData> attempts = spans.stream()
                    .filter(span -> span.getName().equals("attempt ship-order"))
                    .toList();
            SpanData enqueueWebhook = spanNamed("enqueue postbox.webhook").orElseThrow();
            SpanData delivery = spanNamed("attempt postbox.webhook").orElseThrow();
            SpanData send = spanNamed("webhook receiver").orElseThrow();

            assertThat(server.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
            assertThat(enqueue.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(enqueue.getParentSpanId()).isEqualTo(server.getSpanId());
            // Both attempts, the failed one and its retry, are children of the enqueue.
            assertThat(attempts).hasSize(2).allSatisfy(attempt -> {
                assertThat(attempt.getKind()).isEqualTo(SpanKind.CONSUMER);
                assertThat(attempt.getParentSpanId()).isEqualTo(enqueue.getSpanId());
            });
            assertThat(attempts)
                    .extracting(a -> a.getAttributes().asMap().entrySet().stream()
                            .filter(e -> e.getKey().getKey().equals("outcome")
                                    || e.getKey().getKey().equals("postbox.attempt"))
                            .map(e -> e.getKey().getKey() + "=" + e.getValue())
                            .sorted()
                            .collect(Collectors.joining(",")))
                    .containsExactlyInAnyOrder("outcome=retry,postbox.attempt=1", "outcome=success,postbox.attempt=2");
            SpanData retry = attempts.stream()
                    .filter(a -> "2".equals(attribute(a, "postbox.attempt")))
                    .findFirst()
                    .orElseThrow();
            assertThat(enqueueWebhook.getParentSpanId()).isEqualTo(retry.getSpanId());
            assertThat(delivery.getParentSpanId()).isEqualTo(enqueueWebhook.getSpanId());
            assertThat(send.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(send.getParentSpanId()).isEqualTo(delivery.getSpanId());
            assertThat(attribute(send, "endpoint")).isEqualTo("receiver");
            assertThat(attribute(send, "outcome")).isEqualTo("done");
            assertThat(attribute(send, "status")).isEqualTo("2xx");

            // The receiver sees the send's span as its parent, in the incoming request's trace; no baggage.
            assertThat(received).singleElement().satisfies(headers -> {
                assertThat(headers.getFirst("traceparent"))
                        .isEqualTo("00-" + TRACE_ID + "-" + send.getSpanId() + "-01");
                assertThat(headers.getFirst("baggage")).isNull();
            });
            // The handler ran in the restored context: the producer's traceparent and the request's baggage.
            assertThat(handlerSaw)
                    .containsExactly(
                            "1 00-" + TRACE_ID + "-" + enqueue.getSpanId() + "-01 tenant=acme",
                            "2 00-" + TRACE_ID + "-" + enqueue.getSpanId() + "-01 tenant=acme");

            // The same observations as timers, with their low-cardinality tags.
            assertThat(tracing.meters
                            .get("postbox.job.attempt")
                            .tags("kind", "ship-order", "queue", "default", "outcome", "retry")
                            .timer()
                            .count())
                    .isOne();
            assertThat(tracing.meters
                            .get("postbox.job.attempt")
                            .tags("kind", "ship-order", "outcome", "success")
                            .timer()
                            .count())
                    .isOne();
            assertThat(tracing.meters
                            .get("postbox.enqueue")
                            .tags("kind", "ship-order", "queue", "default", "outcome", "created")
                            .timer()
                            .count())
                    .isOne();
            assertThat(tracing.meters
                            .get("postbox.webhook.send")
                            .tags("endpoint", "receiver", "outcome", "done", "status", "2xx")
                            .timer()
                            .count())
                    .isOne();
        });
    }

    private java.util.Optional<SpanData> spanNamed(String name) {
        return tracing.spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .findFirst();
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().asMap().entrySet().stream()
                .filter(e -> e.getKey().getKey().equals(key))
                .map(e -> String.valueOf(e.getValue()))
                .findFirst()
                .orElse(null);
    }

    private static String describe(List<SpanData> spans) {
        return spans.stream()
                .map(s -> s.getName() + "[" + s.getTraceId() + "/" + s.getSpanId() + "<" + s.getParentSpanId() + "]")
                .collect(Collectors.joining(", "));
    }
}
