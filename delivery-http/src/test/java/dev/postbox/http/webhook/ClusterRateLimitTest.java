package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * An endpoint's limit holds cluster-wide. Three independent engines (each with its own
 * delivery module, permit pools and HTTP client, like three processes) share one endpoint limited
 * to 50/s with burst 10; 1,000 deliveries arrive with at most 60 in any one-second window and a mean
 * rate of at least 45/s, with cold HTTP clients.
 */
class ClusterRateLimitTest {

    @Test
    void threeEnginesShareOneBucket() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            for (int i = 0; i < 3; i++) {
                h.node(m -> m, c -> c.concurrency(10));
            }
            HttpDeliveryModule first = h.nodes.get(0).http();
            first.endpoints()
                    .register(Endpoint.builder("limited", receiver.url("/limited"))
                            .secret(WebhookSecret.generate())
                            .rateLimit(50, 10)
                            .build());
            int total = 1000;
            h.tx(c -> {
                for (int i = 0; i < total; i++) {
                    first.webhooks().send(c, "limited", Map.of("n", i), "m-" + i);
                }
            });
            // No warm-up: each engine's first calls are cold (class loading, JIT, new connections),
            // hundreds of milliseconds slower than later ones. A request whose permit is older than
            // the send allowance when its connection is ready is not sent (it takes a new slot), so
            // cold sends cannot bunch into the next second.
            receiver.arrivals.clear();
            long started = System.nanoTime();
            h.nodes.forEach(n -> n.postbox().start());
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> receiver.count() >= total);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> receiver.count() == total);
            long elapsed = System.nanoTime() - started;

            List<Receiver.Arrival> arrivals = receiver.snapshot();
            assertThat(arrivals).hasSize(total);
            assertThat(arrivals.stream().map(Receiver.Arrival::webhookId).collect(Collectors.toSet()))
                    .hasSize(total);
            List<Long> times =
                    arrivals.stream().map(Receiver.Arrival::nanos).sorted().toList();
            int maxWindow = Receiver.maxInWindow(times, 1_000_000_000L);
            double span = (times.get(times.size() - 1) - times.get(0)) / 1e9;
            double mean = (total - 1) / span;
            System.out.printf(
                    "cluster rate limit: %d deliveries by 3 engines in %.2f s (first to last arrival), mean %.2f/s,"
                            + " max in any 1 s window %d, wall time %.2f s%n",
                    total, span, mean, maxWindow, elapsed / 1e9);
            StringBuilder perSecond = new StringBuilder();
            long t0 = times.get(0);
            int[] buckets = new int[(int) span + 2];
            times.forEach(t -> buckets[(int) ((t - t0) / 1_000_000_000L)]++);
            for (int b : buckets) {
                perSecond.append(b).append(' ');
            }
            System.out.println("arrivals per second from the first: " + perSecond + "; first arrival "
                    + (t0 - started) / 1_000_000 + " ms after start; first 12 offsets (ms): "
                    + times.subList(0, 12).stream()
                            .map(t -> (t - t0) / 1_000_000)
                            .toList());
            assertThat(maxWindow).isLessThanOrEqualTo(60);
            assertThat(mean).isGreaterThanOrEqualTo(45.0);
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isZero();
            assertThat(h.count("SELECT count(*) FROM outbox_dead_letter")).isZero();
        }
    }
}
