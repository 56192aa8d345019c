package dev.postbox.http.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.postbox.http.WebhookSecret;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RateLimitAdaptiveTest {

    @Test
    void retryAfterIsHonouredAndLowersTheRate() throws Exception {
        try (Harness h = new Harness();
                Receiver receiver = new Receiver()) {
            AtomicInteger calls = new AtomicInteger();
            receiver.responder = (exchange, body) -> calls.incrementAndGet() == 1
                    ? new Receiver.Reply(429, Map.of("Retry-After", "3"), "slow down")
                    : Receiver.Reply.ok();
            Harness.Node node = h.node(m -> m.maxPermitWait(Duration.ZERO), c -> c);
            node.http()
                    .endpoints()
                    .register(Endpoint.builder("api", receiver.url("/api"))
                            .secret(WebhookSecret.generate())
                            .rateLimit(20, 5)
                            .build());
            h.tx(c -> node.http().webhooks().send(c, "api", Map.of("n", 1), "first"));
            node.postbox().runDueJobs();

            // The job waits for Retry-After (3 s), charged one attempt, with the 429 in the attempt log.
            assertThat(h.count("SELECT attempts FROM outbox_job")).isEqualTo(1);
            assertThat(h.count("SELECT round(extract(epoch FROM run_at - now()))::bigint FROM outbox_job"))
                    .isBetween(2L, 3L);
            assertThat(h.count("SELECT count(*) FROM outbox_attempt WHERE status_code = 429"
                            + " AND detail->'responseHeaders'->>'retry-after' = '3'"
                            + " AND detail->>'responseBody' = 'slow down'"))
                    .isEqualTo(1);
            // The endpoint's cluster-wide rate is halved for 60 s, and nobody may send for 3 s.
            assertThat(h.count("SELECT (rate_factor * 100)::bigint FROM outbox_rate_bucket WHERE endpoint = 'api'"))
                    .isEqualTo(50);
            assertThat(h.count("SELECT round(extract(epoch FROM throttled_until - now()))::bigint"
                            + " FROM outbox_rate_bucket"))
                    .isBetween(58L, 60L);
            RateLimitStore store = new RateLimitStore(h.ds);
            RateLimitStore.Lease lease = store.lease("api", 1);
            assertThat(lease.granted()).isZero();
            assertThat(lease.rate()).isCloseTo(10.0, within(0.001));
            assertThat(lease.untilNextToken().toMillis()).isBetween(2500L, 3000L);

            // Another delivery now waits for a permit: snoozed, no attempt spent.
            h.tx(c -> node.http().webhooks().send(c, "api", Map.of("n", 2), "second"));
            node.postbox().runDueJobs();
            assertThat(calls.get()).isEqualTo(1);
            assertThat(h.count("SELECT attempts FROM outbox_job WHERE idempotency_key = 'api:second'"))
                    .isZero();
            assertThat(h.count("SELECT count(*) FROM outbox_job WHERE idempotency_key = 'api:second'"
                            + " AND run_at > now() + interval '1 second'"))
                    .isEqualTo(1);

            // After the Retry-After both are delivered, at the lowered rate.
            Thread.sleep(3500);
            h.exec("UPDATE outbox_job SET run_at = now()");
            for (int i = 0; i < 10 && calls.get() < 3; i++) {
                node.postbox().runDueJobs();
                Thread.sleep(200);
            }
            assertThat(calls.get()).isEqualTo(3);
            assertThat(h.count("SELECT count(*) FROM outbox_job")).isZero();
        }
    }
}
