package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.postbox.http.signing.WebhookSecret;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The adaptive rate after 429 answers (AIMD, docs/webhooks.md): a cut multiplies the factor by
 * {@link RateLimitStore#DECREASE} (0.7), a burst of
 * 429s to requests sent before the cut counts once, the factor climbs back linearly, and only at
 * the floor does a Retry-After pause the whole endpoint. Time passes through the database: the
 * tests recover at 1/1000 of the default speed (so the real time a statement takes does not
 * show) and move the bucket's cut instants into the past instead of sleeping.
 */
class RateLimitAdaptiveTest {

    @Test
    void a429CutsTheRateAndDelaysItsJobWithoutPausingTheOthers() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            AtomicInteger calls = new AtomicInteger();
            receiver.responder = (exchange, body) -> calls.incrementAndGet() == 1
                    ? new Receiver.Reply(429, Map.of("Retry-After", "3"), "slow down")
                    : Receiver.Reply.ok();
            Harness.Node node = h.node(m -> m.rateRecovery(SLOW_RECOVERY), c -> c);
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("api", receiver.url("/api"))
                            .secret(WebhookSecret.generate())
                            .rateLimit(20, 5)
                            .build());
            h.tx(c -> node.http().webhooks().send(c, "api", Map.of("n", 1), "first"));
            long ran = System.nanoTime();
            node.postbox().runDueJobs();

            // The job waits for its Retry-After (3 s, less the time since, measured), charged one
            // attempt, with the 429 in the attempt log.
            assertThat(h.count("SELECT attempts FROM outbox_job")).isEqualTo(1);
            long waitMillis =
                    h.count("SELECT round(extract(epoch FROM run_at - now()) * 1000)::bigint FROM outbox_job");
            long sinceMillis = (System.nanoTime() - ran) / 1_000_000 + 1;
            assertThat(waitMillis).isBetween(3000 - sinceMillis, 3000L);
            assertThat(h.count("SELECT count(*) FROM outbox_attempt WHERE status_code = 429"
                            + " AND detail->'responseHeaders'->>'retry-after' = '3'"
                            + " AND detail->>'responseBody' = 'slow down'"))
                    .isEqualTo(1);
            // The endpoint's cluster-wide factor is cut to 0.7, to climb back by 1 per SLOW_RECOVERY.
            assertThat(node.http().endpoints().rateFactors().get("api")).isCloseTo(D, within(0.001));
            assertThat(h.count("SELECT round(extract(epoch FROM throttled_until - throttled_at))::bigint"
                            + " FROM outbox_rate_bucket"))
                    .isEqualTo(Math.round((1 - D) * SLOW_RECOVERY.toSeconds()));

            // Another delivery is not paused for the Retry-After (the factor is above its floor): it
            // goes out as soon as the emptied bucket holds a token, without spending an attempt waiting.
            h.tx(c -> node.http().webhooks().send(c, "api", Map.of("n", 2), "second"));
            await().atMost(Duration.ofSeconds(2)).until(() -> {
                node.postbox().runDueJobs();
                return calls.get() == 2;
            });
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE idempotency_key = 'api:second'"))
                    .isZero();
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isEqualTo(1);
        }
    }

    @Test
    void aBurstOf429sToRequestsSentBeforeTheCutCountsOnce() throws Exception {
        try (Harness h = new Harness()) {
            RateLimitStore store = bucket(h, 100);
            assertThat(store.throttle("api", Duration.ofMillis(5), null)).isNotNull();
            // Answers to requests sent 5 s ago, before the cut: the cut already reacted to their window.
            for (int i = 0; i < 10; i++) {
                assertThat(store.throttle("api", Duration.ofSeconds(5), null)).isNull();
            }
            assertThat(store.factors().get("api")).isCloseTo(D, within(0.001));

            // A 429 to a request sent after the cut is a new signal: the factor is cut again.
            shiftCut(h, 0.1);
            RateLimitStore.Throttle second = store.throttle("api", Duration.ofMillis(10), null);
            assertThat(second).isNotNull();
            // From 0.7 + 0.1 recovered: 0.8 * 0.7.
            assertThat(second.factor()).isCloseTo((D + 0.1) * D, within(0.001));
            assertThat(second.paused()).isFalse();
        }
    }

    @Test
    void theRateClimbsBackLinearlyToTheFullRate() throws Exception {
        try (Harness h = new Harness()) {
            RateLimitStore store = bucket(h, 100);
            store.throttle("api", Duration.ZERO, null);
            store.throttle("api", Duration.ZERO, null);
            assertThat(store.factors().get("api")).isCloseTo(D * D, within(0.001));

            shiftCut(h, 0.3);
            assertThat(store.factors().get("api")).isCloseTo(D * D + 0.3, within(0.001));
            RateLimitStore.Lease lease = store.lease("api", 1);
            assertThat(lease.rate()).isCloseTo(100 * (D * D + 0.3), within(0.1));

            shiftCut(h, 0.5);
            assertThat(store.factors().get("api")).isEqualTo(1.0);
            assertThat(store.lease("api", 1).rate()).isEqualTo(100);
        }
    }

    @Test
    void atTheFloorARetryAfterPausesTheEndpointForEveryProcess() throws Exception {
        try (Harness h = new Harness()) {
            RateLimitStore store = bucket(h, 100);
            Duration retryAfter = Duration.ofSeconds(2);
            // 0.7, 0.49, ... 0.118: above the floor, the Retry-After concerns only the 429's job.
            for (int i = 0; i < 6; i++) {
                RateLimitStore.Throttle cut = store.throttle("api", Duration.ZERO, retryAfter);
                assertThat(cut.factor()).isCloseTo(Math.pow(D, i + 1), within(0.001));
                assertThat(cut.paused()).isFalse();
            }
            RateLimitStore.Lease open = store.lease("api", 1);
            assertThat(open.untilNextToken()).isLessThan(Duration.ofMillis(200));

            // The cut that reaches the floor (0.1) honours the Retry-After for the whole bucket.
            long cutAt = System.nanoTime();
            RateLimitStore.Throttle floor = store.throttle("api", Duration.ZERO, retryAfter);
            assertThat(floor.factor()).isCloseTo(0.1, within(1e-6));
            assertThat(floor.paused()).isTrue();
            RateLimitStore.Lease paused = bucket(h, 100).lease("api", 1);
            assertThat(paused.granted()).isZero();
            // the pause, less the time measured since the cut
            Duration sinceCut = Duration.ofNanos(System.nanoTime() - cutAt).plusMillis(1);
            assertThat(paused.untilNextToken()).isBetween(retryAfter.minus(sinceCut), retryAfter);
            // The recovery starts after the pause; answers to requests sent before it change nothing.
            assertThat(store.factors().get("api")).isCloseTo(0.1, within(1e-6));
            assertThat(store.throttle("api", Duration.ZERO, retryAfter)).isNull();
        }
    }

    private static final double D = RateLimitStore.DECREASE;

    /** The factor climbs back by 1 in this time (1,000 times the default, 1 s). */
    private static final Duration SLOW_RECOVERY = HttpDeliveryModule.DEFAULT_RATE_RECOVERY.multipliedBy(1000);

    /** A bucket of {@code rate}/s for endpoint "api", with the default floor (0.1), recovering slowly. */
    private static RateLimitStore bucket(Harness h, double rate) throws Exception {
        RateLimitStore store =
                new RateLimitStore(h.ds, HttpDeliveryModule.DEFAULT_MIN_RATE_FACTOR, 1e9 / SLOW_RECOVERY.toNanos());
        store.configure("api", rate, (int) rate);
        return store;
    }

    /** Moves the last cut into the past by the time the factor takes to recover {@code factor}. */
    private static void shiftCut(Harness h, double factor) {
        long seconds = Math.round(factor * SLOW_RECOVERY.toSeconds());
        h.exec("UPDATE outbox_rate_bucket SET throttled_at = throttled_at - interval '" + seconds + " s',"
                + " throttled_until = throttled_until - interval '" + seconds + " s'");
    }
}
