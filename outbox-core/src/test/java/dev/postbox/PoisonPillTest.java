package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.JobStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Poison pills reach the dead letters after their budget without holding up their lane. */
class PoisonPillTest extends DatabaseTest {

    @Test
    void aJobThatAlwaysThrowsIsDeadLetteredWhileItsLaneKeepsFlowing() {
        AtomicInteger good = new AtomicInteger();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("poison", job -> {
                            throw new IllegalStateException("always fails");
                        })
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofMillis(20))
                                .cap(Duration.ofMillis(50))
                                .maxAttempts(5)
                                .build()))
                .handler("good", job -> good.incrementAndGet())
                .config(fastConfig().concurrency(2).build())
                .build());
        tx.executeWithoutResult(s -> {
            postbox.outbox().enqueue(JobRequest.of("poison", Map.of()));
            List<JobRequest> jobs = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                jobs.add(JobRequest.of("good", Map.of("i", i)));
            }
            postbox.outbox().enqueueAll(jobs);
        });
        postbox.start();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> good.get() == 500 && count("SELECT count(*) FROM outbox_dead_letter") == 1);

        assertThat(count("SELECT attempts FROM outbox_dead_letter WHERE kind = 'poison'"))
                .isEqualTo(5);
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE outcome IN ('retry', 'dead')"))
                .isEqualTo(5);
    }

    @Test
    void aJobThatKillsItsWorkerEveryTimeStillExhaustsItsBudget() throws Exception {
        Postbox rescuer = track(Postbox.builder(dataSource)
                .config(fastConfig()
                        .visibilityTimeout(Duration.ofMillis(300))
                        .heartbeatInterval(Duration.ofMillis(100))
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofMillis(1))
                                .cap(Duration.ofMillis(1))
                                .build())
                        .build())
                .build());
        long id = tx.execute(s -> rescuer.outbox()
                        .enqueue(JobRequest.builder("crash")
                                .payload(Map.of())
                                .maxAttempts(3)
                                .build()))
                .jobId();
        JobStore store = new JobStore(JsonCodec.jackson());

        // Each "worker" claims the job and dies (never completes, never heartbeats).
        for (int attempt = 1; attempt <= 3; attempt++) {
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                try (Connection c = dataSource.getConnection()) {
                    return !store.claim(c, "default", 1, "doomed-worker", Duration.ofMillis(300))
                            .isEmpty();
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                rescuer.rescueExpiredLeases();
                return count("SELECT count(*) FROM outbox_job WHERE state = 'running'") == 0;
            });
        }

        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_dead_letter WHERE id = ?", String.class, id))
                .contains("lease expired on attempt 3 of 3");
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE job_id = ? AND outcome = 'lease_expired'", id))
                .isEqualTo(3);
    }
}
