package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Several engines with several threads each race over the same jobs: each runs exactly once. */
class ConcurrentEnginesTest extends DatabaseTest {

    @Test
    void fourEnginesHandleTenThousandJobsExactlyOnce() {
        int jobs = 10_000;
        Postbox producer = Postbox.builder(dataSource).build();
        for (int from = 0; from < jobs; from += 1000) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = from; i < from + 1000; i++) {
                batch.add(JobRequest.of("count", Map.of("n", i)));
            }
            tx.executeWithoutResult(s -> producer.outbox().enqueueAll(batch));
        }
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        for (int e = 0; e < 4; e++) {
            track(Postbox.builder(dataSource)
                            .handler(
                                    "count",
                                    job -> runs.computeIfAbsent(job.id(), id -> new AtomicInteger())
                                            .incrementAndGet())
                            .config(fastConfig()
                                    .workerId("engine-" + e)
                                    .concurrency(4)
                                    .claimBatchSize(50)
                                    .build())
                            .build())
                    .start();
        }

        await().atMost(Duration.ofSeconds(60))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'") == jobs);

        assertThat(runs).hasSize(jobs);
        assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isOne());
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(count("SELECT count(DISTINCT id) FROM outbox_job_archive")).isEqualTo(jobs);
    }
}
