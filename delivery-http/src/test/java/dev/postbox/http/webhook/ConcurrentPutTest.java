package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.http.signing.WebhookSecret;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: instances that start together each {@link EndpointRegistry#put put} the endpoints of
 * their configuration. {@code put} is one atomic upsert: racing callers never fail, and racing
 * callers with different definitions leave one whole definition (never a mix), with the rate bucket
 * in step with it.
 */
class ConcurrentPutTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 50;

    @Test
    void instancesStartingTogetherOnAFreshDatabaseAllStart() throws Exception {
        try (Harness h = new Harness()) {
            // One registry per "instance", as every process has its own module.
            List<EndpointRegistry> registries = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                registries.add(h.node().http().endpoints());
            }
            WebhookSecret secret = WebhookSecret.generate();
            List<Throwable> failures = race(
                    registries,
                    round -> Endpoint.builder("hook-" + round, "https://hooks.example.com/r" + round)
                            .secret(secret)
                            .rateLimit(20, 5)
                            .subscribe("order.paid")
                            .build());

            assertThat(failures).isEmpty();
            assertThat(h.count("SELECT count(*) FROM outbox_endpoint")).isEqualTo(ROUNDS);
            assertThat(h.count("SELECT count(*) FROM outbox_endpoint e JOIN outbox_rate_bucket b"
                            + " ON b.endpoint = e.name WHERE b.rate_per_second = 20"
                            + " AND e.url = 'https://hooks.example.com/r' || substr(e.name, 6)"))
                    .isEqualTo(ROUNDS);
            Endpoint stored = registries.get(0).get("hook-7").orElseThrow();
            assertThat(stored.url()).isEqualTo("https://hooks.example.com/r7");
            assertThat(stored.eventTypes()).containsExactly("order.paid");
            assertThat(stored.ratePerSecond()).contains(20.0);
            assertThat(stored.burst()).isEqualTo(5);
            assertThat(stored.isEnabled()).isTrue();
        }
    }

    @Test
    void racingDifferentDefinitionsLeaveOneWholeDefinitionAndItsBucket() throws Exception {
        try (Harness h = new Harness()) {
            List<EndpointRegistry> registries = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                registries.add(h.node().http().endpoints());
            }
            WebhookSecret secret = WebhookSecret.generate();
            // Even threads: the old version (url a, 10/s); odd threads: the new one (url b, 40/s, no events).
            List<Throwable> failures = race(registries, (round, thread) -> {
                Endpoint.Builder b = Endpoint.builder("hook-" + round, "https://a.example.com/hooks")
                        .secret(secret);
                if (thread % 2 == 0) {
                    return b.rateLimit(10, 2).subscribe("v1").build();
                }
                return b.url("https://b.example.com/hooks").rateLimit(40, 8).build();
            });

            assertThat(failures).isEmpty();
            assertThat(h.count("SELECT count(*) FROM outbox_endpoint")).isEqualTo(ROUNDS);
            long whole =
                    h.count("SELECT count(*) FROM outbox_endpoint e JOIN outbox_rate_bucket b ON b.endpoint = e.name"
                            + " WHERE (e.url, e.rate_per_second, e.rate_burst, e.event_types, b.rate_per_second)"
                            + "   = ('https://a.example.com/hooks', 10, 2, ARRAY['v1'], 10)"
                            + " OR (e.url, e.rate_per_second, e.rate_burst, e.event_types, b.rate_per_second)"
                            + "   = ('https://b.example.com/hooks', 40, 8, '{}'::text[], 40)");
            assertThat(whole).isEqualTo(ROUNDS);
            // Both versions won some rounds somewhere is likely but not guaranteed; each round is whole.
            Set<String> urls = Set.copyOf(
                    registries.get(0).list().stream().map(Endpoint::url).toList());
            assertThat(urls).isSubsetOf("https://a.example.com/hooks", "https://b.example.com/hooks");
        }
    }

    private interface Definition {
        Endpoint of(int round, int thread);
    }

    private interface SameDefinition {
        Endpoint of(int round);
    }

    private static List<Throwable> race(List<EndpointRegistry> registries, SameDefinition definition) throws Exception {
        return race(registries, (round, thread) -> definition.of(round));
    }

    /** Every round, all threads put their definition of one new endpoint at once (a barrier). */
    private static List<Throwable> race(List<EndpointRegistry> registries, Definition definition) throws Exception {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CyclicBarrier barrier = new CyclicBarrier(registries.size());
        ExecutorService pool = Executors.newFixedThreadPool(registries.size());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < registries.size(); t++) {
                int thread = t;
                EndpointRegistry registry = registries.get(t);
                runs.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        Endpoint endpoint = definition.of(round, thread);
                        barrier.await(30, TimeUnit.SECONDS);
                        try {
                            registry.put(endpoint);
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return failures;
    }
}
