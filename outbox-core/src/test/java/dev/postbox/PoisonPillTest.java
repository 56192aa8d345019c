package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.testing.SwitchableDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

    /**
     * Each "worker" is an engine whose connections the poison cuts off from inside its handler, as
     * a native crash or OOM kill would: nothing is written after that. The first crash comes before
     * any start mark (batched marks are off here), so it is not charged and makes the job suspect;
     * from then on its start is recorded before the handler runs, and every crash is charged.
     */
    @Test
    void aJobThatKillsItsWorkerEveryTimeStillExhaustsItsBudget() {
        Postbox rescuer = Postbox.builder(dataSource)
                .config(fastConfig()
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofMillis(1))
                                .cap(Duration.ofMillis(1))
                                .build())
                        .build())
                .build();
        long id = tx.execute(s -> rescuer.outbox()
                        .enqueue(JobRequest.builder("crash")
                                .payload(Map.of())
                                .maxAttempts(3)
                                .build()))
                .jobId();

        List<Boolean> startRecordedAtCrash = new ArrayList<>();
        CountDownLatch hold = new CountDownLatch(1);
        try {
            for (int worker = 1; worker <= 8 && count("SELECT count(*) FROM outbox_dead_letter") == 0; worker++) {
                SwitchableDataSource db = new SwitchableDataSource(dataSource);
                CountDownLatch crashed = new CountDownLatch(1);
                Postbox engine = track(Postbox.builder(db)
                        .handler("crash", job -> {
                            startRecordedAtCrash.add(jdbc.queryForObject(
                                    "SELECT lease_started FROM outbox_job WHERE id = ?", Boolean.class, job.id()));
                            db.cutOff();
                            crashed.countDown();
                            hold.await(30, TimeUnit.SECONDS);
                        })
                        .config(fastConfig()
                                .workerId("doomed-" + worker)
                                .visibilityTimeout(Duration.ofMillis(300))
                                .heartbeatInterval(Duration.ofMillis(100))
                                .startMarkInterval(Duration.ofHours(1))
                                .rescueInterval(Duration.ofHours(1))
                                .build())
                        .build());
                engine.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> crashed.getCount() == 0);
                await().atMost(Duration.ofSeconds(5)).until(() -> {
                    rescuer.rescueExpiredLeases();
                    return count("SELECT count(*) FROM outbox_job WHERE state = 'running'") == 0;
                });
            }
        } finally {
            hold.countDown();
        }

        assertThat(startRecordedAtCrash)
                .as("crashes: the first uncharged, then one per attempt of the budget of 3")
                .containsExactly(false, true, true, true);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_dead_letter WHERE id = ?", String.class, id))
                .isEqualTo("lease expired on attempt 3 of 3: worker doomed-4 stopped or hung");
        assertThat(jdbc.queryForList(
                        "SELECT outcome || ':' || attempt FROM outbox_attempt WHERE job_id = ? ORDER BY finished_at",
                        String.class,
                        id))
                .containsExactly("unstarted:1", "lease_expired:1", "lease_expired:2", "lease_expired:3");
    }
}
