package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.postbox.JobRequest;
import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The line of a rate bucket is cluster-wide: slots handed out by any process, one by one or in bulk,
 * never overlap, and a bulk line-up gives the endpoint's due, unclaimed deliveries one slot each in
 * claim order, without touching attempts or leases.
 */
class DeliveryLineTest {

    private static final double RATE = 50; // one slot per 20 ms

    @Test
    void processesTakeSuccessiveSlotsOfOneLine() throws Exception {
        try (Harness h = new Harness()) {
            RateLimitStore a = store(h);
            RateLimitStore b = store(h);
            a.configure("api", RATE, 10);

            long start = System.nanoTime();
            RateLimitStore.Slots first = a.reserve("api", 5, Duration.ofMillis(100));
            long afterFirst = System.nanoTime();
            RateLimitStore.Slots second = b.reserve("api", 5, Duration.ZERO);
            long afterSecond = System.nanoTime();
            RateLimitStore.Slots third = a.reserve("api", 5, Duration.ZERO);
            long afterThird = System.nanoTime();

            assertThat(first.spacing()).isEqualTo(Duration.ofMillis(20));
            // 100 ms from the statement, less the time the statement itself took (at most the call's)
            assertThat(first.first().toMillis()).isBetween(100 - millisUpTo(start, afterFirst), 100L);
            // The second process's block starts where the first one's ends (100 ms later), less the
            // time that passed between the two statements (at most the time from the first call to
            // the end of the second, as measured here); likewise the third.
            long firstMillis = first.first().toMillis();
            assertThat(second.first().toMillis())
                    .isBetween(firstMillis + 100 - millisUpTo(start, afterSecond), firstMillis + 100);
            long secondMillis = second.first().toMillis();
            assertThat(third.first().toMillis())
                    .isBetween(secondMillis + 100 - millisUpTo(afterFirst, afterThird), secondMillis + 100);
            assertThat(store(h).reserve("unknown", 5, Duration.ZERO)).isNull();
        }
    }

    @Test
    void aLineUpGivesTheDueUnclaimedDeliveriesOneSlotEachInClaimOrder() throws Exception {
        try (Harness h = new Harness()) {
            Harness.Node node = h.node();
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("api", "https://api.example.com/hooks")
                            .secret(WebhookSecret.generate())
                            .rateLimit(RATE, 10)
                            .build());
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("other", "https://other.example.com/hooks")
                            .secret(WebhookSecret.generate())
                            .rateLimit(RATE, 10)
                            .build());
            h.tx(c -> {
                List<JobRequest> requests = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    requests.add(node.http().webhooks().delivery("api", Map.of("n", i), "a-" + i, Map.of()));
                    requests.add(node.http().webhooks().delivery("other", Map.of("n", i), "o-" + i, Map.of()));
                }
                requests.add(JobRequest.ofJson("local", "{}"));
                node.postbox().outbox().enqueueAll(c, requests);
            });
            DeliveryLine line = new DeliveryLine(h.ds, JobRequest.DEFAULT_QUEUE);

            long before = System.nanoTime();
            assertThat(line.lineUp("api", Duration.ofSeconds(1))).isEqualTo(100);
            assertThat(line.lineUp("api", Duration.ZERO))
                    .as("none due any more")
                    .isZero();

            JdbcTemplate jdbc = new JdbcTemplate(h.ds);
            List<Double> offsets = jdbc.queryForList(
                    "SELECT extract(epoch FROM run_at - now()) FROM outbox_job WHERE endpoint = 'api' ORDER BY id",
                    Double.class);
            double elapsed = (System.nanoTime() - before) / 1e9;
            assertThat(offsets).hasSize(100);
            // slot 0 starts 1 s after the line-up (less the time since), slot i i * 20 ms later, each
            // delivery at a random point of its slot
            assertThat(offsets.get(0)).isBetween(1.0 - elapsed - 0.01, 1.0 + 1 / RATE + 0.01);
            for (int i = 1; i < offsets.size(); i++) {
                assertThat(offsets.get(i) - offsets.get(0)).isCloseTo(i / RATE, within(1 / RATE + 1e-6));
            }
            assertThat(offsets).isSorted();
            assertThat(jdbc.queryForObject(
                            "SELECT count(*) FROM outbox_job WHERE endpoint = 'api' AND (attempts <> 0"
                                    + " OR lease_token IS NOT NULL OR state <> 'pending')",
                            Integer.class))
                    .isZero();
            assertThat(jdbc.queryForObject(
                            "SELECT count(*) FROM outbox_job WHERE (endpoint IS NULL OR endpoint = 'other')"
                                    + " AND run_at > now()",
                            Integer.class))
                    .as("other endpoints' and local jobs stay due")
                    .isZero();
            // The line's end moved past the 100 slots: the next slot comes after them (3 s after the
            // line-up, less the time since).
            RateLimitStore.Slots next = store(h).reserve("api", 1, Duration.ZERO);
            long sinceLineUpMillis = (System.nanoTime() - before) / 1_000_000;
            assertThat(next.first().toMillis()).isBetween(2900L - sinceLineUpMillis, 3000L);
        }
    }

    /** Milliseconds between two {@code nanoTime} readings, rounded up (the slots' offsets are truncated). */
    private static long millisUpTo(long fromNanos, long toNanos) {
        return (toNanos - fromNanos + 999_999) / 1_000_000 + 1;
    }

    private static RateLimitStore store(Harness h) {
        return new RateLimitStore(
                h.ds,
                HttpDeliveryModule.DEFAULT_MIN_RATE_FACTOR,
                1e9 / HttpDeliveryModule.DEFAULT_RATE_RECOVERY.toNanos());
    }
}
