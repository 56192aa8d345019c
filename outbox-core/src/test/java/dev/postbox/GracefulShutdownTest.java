package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * docs/guarantees.md §2: a graceful stop lets the running job finish and hands claimed-but-unstarted jobs back
 * at once, without charging them an attempt, so another engine can run them.
 */
class GracefulShutdownTest extends DatabaseTest {

    @Test
    void stopFinishesTheRunningJobAndReleasesUnstartedClaimsWithoutChargingAnAttempt() throws Exception {
        Postbox producer = Postbox.builder(dataSource).build();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            requests.add(JobRequest.of("work", Map.of("n", i)));
        }
        List<Long> ids = tx.execute(s -> producer.outbox().enqueueAll(requests)).stream()
                .map(EnqueueResult::jobId)
                .toList();

        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ConcurrentLinkedQueue<Long> ranOnA = new ConcurrentLinkedQueue<>();
        Postbox a = track(Postbox.builder(dataSource)
                .handler("work", job -> {
                    ranOnA.add(job.id());
                    running.countDown();
                    if (!release.await(20, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("test never released the job");
                    }
                })
                .config(fastConfig()
                        .workerId("engine-a")
                        .concurrency(1)
                        .prefetch(10)
                        .shutdownGrace(Duration.ofSeconds(10))
                        .build())
                .build());
        a.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> running.getCount() == 0);
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        count("SELECT count(*) FROM outbox_job WHERE state = 'running' AND lease_owner = 'engine-a'")
                                == 11);
        assertThat(ranOnA).hasSize(1);
        long first = ranOnA.peek();
        List<Long> unstarted = ids.stream().filter(id -> id != first).toList();

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(a::stop);

        // The unstarted claims are handed back while the running job is still running.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job WHERE state = 'pending'") == 10);
        assertThat(stopping).as("stop waits for the running job").isNotDone();
        assertThat(jdbc.queryForObject("SELECT state FROM outbox_job WHERE id = ?", String.class, first))
                .isEqualTo("running");

        release.countDown();
        // stop() returns once the running job is done, not after the whole 10 s grace period
        stopping.get(3, TimeUnit.SECONDS);
        assertThat(a.isRunning()).isFalse();

        assertThat(ranOnA).as("no unstarted job ran after stop()").containsExactly(first);
        assertThat(jdbc.queryForMap("SELECT state, attempts FROM outbox_job_archive WHERE id = ?", first))
                .containsEntry("state", "done")
                .containsEntry("attempts", 1);
        List<Map<String, Object>> released = jdbc.queryForList(
                "SELECT id, state, attempts, lease_owner, lease_token, lease_until FROM outbox_job ORDER BY id");
        assertThat(released).extracting(r -> r.get("id")).containsExactlyElementsOf(unstarted);
        for (Map<String, Object> row : released) {
            assertThat(row)
                    .as("released job %s", row.get("id"))
                    .containsEntry("state", "pending")
                    .containsEntry("attempts", 0)
                    .containsEntry("lease_owner", null)
                    .containsEntry("lease_token", null)
                    .containsEntry("lease_until", null);
        }
        assertThat(count("SELECT count(*) FROM outbox_job WHERE run_at <= now()"))
                .as("released jobs are due at once")
                .isEqualTo(10);
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE outcome = 'released' AND worker = 'engine-a'"))
                .isEqualTo(10);

        Map<Long, Integer> attemptOnB = new ConcurrentHashMap<>();
        Postbox b = track(Postbox.builder(dataSource)
                .handler("work", job -> attemptOnB.put(job.id(), job.attempt()))
                .config(fastConfig().workerId("engine-b").build())
                .build());
        b.start();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'") == 11);
        assertThat(attemptOnB).containsOnlyKeys(unstarted);
        assertThat(attemptOnB.values()).as("each ran as its first attempt").containsOnly(1);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }
}
