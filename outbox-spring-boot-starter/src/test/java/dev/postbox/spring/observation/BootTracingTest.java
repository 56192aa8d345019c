package dev.postbox.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.BootApplications;
import dev.postbox.spring.BootAutoConfigurations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 35: tracing through Spring Boot's own auto-configuration, with the dependencies
 * docs/tracing.md lists for the Boot line (on Boot 4 {@code spring-boot-micrometer-tracing-opentelemetry}
 * and the OpenTelemetry bridge; on Boot 3.5 the actuator and the bridge), not a tracer built by
 * hand: a job enqueued inside an observation reaches a real receiver with a {@code traceparent} of
 * the observation's trace, and the spans reach the exporter bean. Without Boot's tracer set-up the
 * start-up log says, in one line, what to add.
 */
@ExtendWith(OutputCaptureExtension.class)
class BootTracingTest {

    private final List<String> traceparents = new CopyOnWriteArrayList<>();
    private final BootApplications apps = new BootApplications();
    private HttpServer receiver;

    /** An application as docs/tracing.md describes it: an exporter bean, a handler that sends a webhook. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class TracedApplication {

        @Bean
        InMemorySpanExporter spanExporter() {
            return InMemorySpanExporter.create();
        }

        @Bean
        HandlerRegistration shipOrder(ObjectProvider<Webhooks> webhooks) {
            return HandlerRegistration.of(
                            "ship-order", job -> webhooks.getObject().send("receiver", Map.of("shipped", 42), "s-42"))
                    .transactional();
        }
    }

    @BeforeEach
    void startReceiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hooks", exchange -> {
            exchange.getRequestBody().readAllBytes();
            traceparents.add(String.valueOf(exchange.getRequestHeaders().getFirst("traceparent")));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        apps.close();
        receiver.stop(0);
    }

    private String[] properties(String... more) {
        List<String> all = new java.util.ArrayList<>(List.of(
                "postbox.schema.initialize=always",
                "postbox.worker.poll-interval=100ms",
                "postbox.worker.shutdown-grace=2s",
                "management.tracing.sampling.probability=1.0",
                "postbox.http.allow-list=127.0.0.1/32",
                "postbox.http.secrets.keys.test=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                "postbox.http.endpoints.receiver.url=http://127.0.0.1:"
                        + receiver.getAddress().getPort() + "/hooks",
                "postbox.http.endpoints.receiver.secrets="
                        + WebhookSecret.generate().serialized()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void bootsOwnTracingCarriesTheEnqueuingObservationsTraceToTheWebhookReceiver(CapturedOutput output) {
        ConfigurableApplicationContext context = apps.start(TracedApplication.class, properties());
        assertThat(context.getBean(Tracer.class))
                .as("Boot configured a real tracer")
                .isNotSameAs(Tracer.NOOP);
        InMemorySpanExporter exporter = context.getBean(InMemorySpanExporter.class);

        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        Outbox outbox = context.getBean(Outbox.class);
        Observation.createNotStarted("place-order", context.getBean(ObservationRegistry.class))
                .observe(() ->
                        tx.executeWithoutResult(s -> outbox.enqueue(JobRequest.of("ship-order", Map.of("order", 42)))));

        await().atMost(Duration.ofSeconds(60)).until(() -> !traceparents.isEmpty());
        // Boot exports spans in batches: wait for the request's span to reach the exporter bean.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> span(exporter, "place-order").isPresent()
                        && span(exporter, "webhook receiver").isPresent());
        String traceId = span(exporter, "place-order").orElseThrow().getTraceId();
        SpanData send = span(exporter, "webhook receiver").orElseThrow();
        // The send's span is the receiver's parent, in the observation's trace (the flags vary: sampled, random id).
        assertThat(traceparents).singleElement().asString().startsWith("00-" + traceId + "-" + send.getSpanId() + "-");
        assertThat(output).doesNotContain("has no tracer");
    }

    @Test
    void withoutBootsTracerSetUpTheStartUpLogSaysWhatToAdd(CapturedOutput output) {
        apps.start(
                TracedApplication.class,
                properties("spring.autoconfigure.exclude=" + BootAutoConfigurations.TRACER_AUTO_CONFIGURATION));

        List<String> hints = output.getAll()
                .lines()
                .filter(line -> line.contains("has no tracer"))
                .toList();
        assertThat(hints)
                .singleElement()
                .asString()
                .contains("micrometer-tracing-bridge-otel is on the class path but the application has no tracer")
                .contains("webhooks leave without traceparent")
                .contains("add " + BootAutoConfigurations.TRACING_DEPENDENCY);
    }

    private static Optional<SpanData> span(InMemorySpanExporter exporter, String name) {
        return exporter.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .findFirst();
    }
}
