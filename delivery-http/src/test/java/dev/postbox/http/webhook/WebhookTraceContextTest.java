package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Job;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.signing.WebhookSecret;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class WebhookTraceContextTest {

    private static final String STORED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final String OF_THE_SEND = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

    private static void registerShop(Harness.Node node, Receiver receiver) {
        node.http()
                .endpoints()
                .register(Endpoint.builder("shop", receiver.url("/shop"))
                        .secret(WebhookSecret.generate())
                        .build());
    }

    private static void sendTraced(Harness h, Harness.Node node) {
        h.tx(c -> node.postbox()
                .outbox()
                .enqueue(
                        c,
                        node.http()
                                .webhooks()
                                .delivery(
                                        "shop",
                                        Map.of("n", 1),
                                        "k1",
                                        Map.of("traceparent", STORED, "tracestate", "congo=t61rcWkgMzE"))));
    }

    @Test
    void withoutInstrumentationTheTraceContextStoredWithTheJobIsSent() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            Harness.Node node = h.node();
            registerShop(node, receiver);
            sendTraced(h, node);

            node.postbox().runDueJobs();

            assertThat(receiver.snapshot()).singleElement().satisfies(a -> {
                assertThat(a.headers().getFirst("traceparent")).isEqualTo(STORED);
                assertThat(a.headers().getFirst("tracestate")).isEqualTo("congo=t61rcWkgMzE");
            });
        }
    }

    @Test
    void theInstrumentationWrapsEachSendAndChoosesTheTraceContextItCarries() throws Exception {
        List<String> sends = new CopyOnWriteArrayList<>();
        WebhookInstrumentation instrumentation = new WebhookInstrumentation() {
            @Override
            public AttemptResult send(Job job, String endpoint, Function<Map<String, String>, AttemptResult> send) {
                AttemptResult result = send.apply(Map.of("traceparent", OF_THE_SEND, "baggage", "not=sent"));
                sends.add(endpoint + " " + job.headers().get("traceparent") + " " + result.outcome());
                return result;
            }
        };
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            Harness.Node node = h.node(m -> m.instrumentation(instrumentation), c -> c);
            registerShop(node, receiver);
            sendTraced(h, node);

            node.postbox().runDueJobs();

            assertThat(sends).containsExactly("shop " + STORED + " DONE");
            assertThat(receiver.snapshot()).singleElement().satisfies(a -> {
                assertThat(a.headers().getFirst("traceparent")).isEqualTo(OF_THE_SEND);
                // The send's own context has no tracestate: the job's is not mixed into it.
                assertThat(a.headers().getFirst("tracestate")).isNull();
                assertThat(a.headers().getFirst("baggage")).isNull();
            });
        }
    }
}
