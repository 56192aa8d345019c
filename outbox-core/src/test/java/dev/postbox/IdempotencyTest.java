package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class IdempotencyTest extends DatabaseTest {

    @Test
    void tenSequentialEnqueuesWithOneKeyYieldOneJob() {
        Postbox postbox = Postbox.builder(dataSource).build();
        List<EnqueueResult> results = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            results.add(enqueueCommitted(
                    postbox.outbox(),
                    JobRequest.builder("charge")
                            .payload(Map.of("try", i))
                            .idempotencyKey("charge-42")
                            .build()));
        }

        assertThat(results)
                .extracting(EnqueueResult::jobId)
                .containsOnly(results.get(0).jobId());
        assertThat(results).filteredOn(EnqueueResult::created).hasSize(1);
        assertThat(count("SELECT count(*) FROM outbox_job")).isOne();
    }

    @Test
    void eightConcurrentEnqueuesWithOneKeyYieldOneJob() throws Exception {
        Postbox postbox = Postbox.builder(dataSource).build();
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<EnqueueResult>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> tx.execute(s -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return postbox.outbox()
                            .enqueue(JobRequest.builder("charge")
                                    .payload(Map.of())
                                    .idempotencyKey("race-key")
                                    .build());
                })));
            }
            List<EnqueueResult> results = new ArrayList<>();
            for (Future<EnqueueResult> f : futures) {
                results.add(f.get());
            }

            assertThat(results)
                    .extracting(EnqueueResult::jobId)
                    .containsOnly(results.get(0).jobId());
            assertThat(results).filteredOn(EnqueueResult::created).hasSize(1);
            assertThat(count("SELECT count(*) FROM outbox_job")).isOne();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void keyStaysTakenAfterTheJobFinishedAndIsFreedByARolledBackEnqueue() {
        Postbox postbox =
                track(Postbox.builder(dataSource).handler("charge", job -> {}).build());
        JobRequest request = JobRequest.builder("charge")
                .payload(Map.of())
                .idempotencyKey("k-1")
                .build();

        tx.executeWithoutResult(s -> {
            postbox.outbox().enqueue(request);
            s.setRollbackOnly();
        });
        EnqueueResult first = enqueueCommitted(postbox.outbox(), request);
        assertThat(first.created()).isTrue();
        assertThat(postbox.runDueJobs()).isOne();
        EnqueueResult again = enqueueCommitted(postbox.outbox(), request);

        assertThat(again.created()).isFalse();
        assertThat(again.jobId()).isEqualTo(first.jobId());
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"))
                .isOne();
    }

    @Test
    void keyPastItsDedupWindowCreatesANewJob() {
        Postbox postbox = Postbox.builder(dataSource).build();
        JobRequest request = JobRequest.builder("charge")
                .payload(Map.of())
                .idempotencyKey("k-2")
                .build();
        EnqueueResult first = enqueueCommitted(postbox.outbox(), request);
        jdbc.update("UPDATE outbox_idempotency_key SET expires_at = now() - interval '1 second'");

        EnqueueResult second = enqueueCommitted(postbox.outbox(), request);

        assertThat(second.created()).isTrue();
        assertThat(second.jobId()).isNotEqualTo(first.jobId());
    }
}
