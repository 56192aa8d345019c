package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pause/resume and concurrency caps per process and cluster-wide. */
class QueueControlTest extends DatabaseTest {

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();

    @BeforeEach
    void resetCounters() {
        running.set(0);
        maxRunning.set(0);
        done.set(0);
    }

    private JobHandler measuring() {
        return job -> {
            int now = running.incrementAndGet();
            maxRunning.accumulateAndGet(now, Math::max);
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
            running.decrementAndGet();
            done.incrementAndGet();
        };
    }

    private void enqueue(String queue, int n) {
        Postbox producer = Postbox.builder(dataSource).build();
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(JobRequest.builder("m").queue(queue).payload(Map.of()).build());
        }
        tx.executeWithoutResult(s -> producer.outbox().enqueueAll(jobs));
    }

    @Test
    void clusterWideCapHoldsAcrossEngines() {
        enqueue("capped", 300);
        Postbox.builder(dataSource).build().admin().setMaxConcurrency("capped", 2);
        for (int i = 0; i < 3; i++) {
            track(Postbox.builder(dataSource)
                            .handler("m", measuring())
                            .config(fastConfig().queues("capped").concurrency(4).build())
                            .build())
                    .start();
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> done.get() == 300);

        assertThat(maxRunning.get()).isBetween(1, 2);
    }

    @Test
    void processCapLimitsOneQueueWhileOthersFlow() {
        enqueue("slow", 50);
        enqueue("fast", 200);
        AtomicInteger slowRunning = new AtomicInteger();
        AtomicInteger slowMax = new AtomicInteger();
        track(Postbox.builder(dataSource)
                        .handler("m", job -> {
                            if (job.queue().equals("slow")) {
                                slowMax.accumulateAndGet(slowRunning.incrementAndGet(), Math::max);
                                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                                slowRunning.decrementAndGet();
                            }
                            done.incrementAndGet();
                        })
                        .config(fastConfig()
                                .queues("slow", "fast")
                                .concurrency(6)
                                .queueConcurrency("slow", 1)
                                .build())
                        .build())
                .start();

        await().atMost(Duration.ofSeconds(60)).until(() -> done.get() == 250);

        assertThat(slowMax.get()).isOne();
    }

    @Test
    void pausedQueueIsNotClaimedUntilResumed() {
        enqueue("default", 5);
        Postbox postbox =
                track(Postbox.builder(dataSource).handler("m", measuring()).build());
        postbox.admin().pause("default");

        assertThat(postbox.runDueJobs()).isZero();
        assertThat(postbox.admin().queues()).anySatisfy(q -> {
            assertThat(q.queue()).isEqualTo("default");
            assertThat(q.paused()).isTrue();
            assertThat(q.due()).isEqualTo(5);
        });

        postbox.admin().resume("default");
        assertThat(postbox.runDueJobs()).isEqualTo(5);
    }
}
