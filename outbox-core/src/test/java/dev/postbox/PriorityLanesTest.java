package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Fairness: higher priorities go first, yet a backlogged low lane keeps its weighted
 * share, so low-priority jobs wait a bounded time under sustained high-priority overload.
 */
class PriorityLanesTest extends DatabaseTest {

    /** Simulated handler work: the job holds its thread this long. */
    private static final long WORK_NANOS = Duration.ofMillis(10).toNanos();

    private static final int SECONDS = Integer.getInteger("postbox.fairness.seconds", 60);
    private static final Duration BOUND = Duration.ofSeconds(5);

    record Work(String lane, long enqueuedAtMillis) {}

    @Test
    void lowPriorityJobsStartWithinTheBoundWhileHighPriorityProducersOverloadTheWorkers() throws Exception {
        ConcurrentLinkedQueue<Long> lowWaitsMillis = new ConcurrentLinkedQueue<>();
        AtomicInteger highDone = new AtomicInteger();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("work", job -> {
                    Work work = job.payload(Work.class);
                    if (work.lane().equals("low")) {
                        lowWaitsMillis.add(System.currentTimeMillis() - work.enqueuedAtMillis());
                    } else {
                        highDone.incrementAndGet();
                    }
                    LockSupport.parkNanos(WORK_NANOS);
                })
                .config(fastConfig().concurrency(4).claimBatchSize(40).build())
                .build());
        postbox.start();

        // High producer: 600 jobs/s against a capacity of about 400/s, so the high backlog grows
        // all the time. Low producer: 2 jobs/s.
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger lowEnqueued = new AtomicInteger();
        Thread high = new Thread(() -> produce(postbox, producing, "high", 10, 60, null));
        Thread low = new Thread(() -> produce(postbox, producing, "low", -10, 1, lowEnqueued));
        high.start();
        low.start();
        long end = System.nanoTime() + Duration.ofSeconds(SECONDS).toNanos();
        await().atMost(Duration.ofSeconds(SECONDS + 10))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> System.nanoTime() >= end);
        producing.set(false);
        high.join();
        low.join();
        await().atMost(BOUND.plusSeconds(5)).until(() -> lowWaitsMillis.size() == lowEnqueued.get());

        long highBacklog = count("SELECT count(*) FROM outbox_job WHERE lane = 1");
        assertThat(highBacklog).as("the high lane really was overloaded").isGreaterThan(1000);
        assertThat(lowEnqueued.get()).isGreaterThanOrEqualTo(SECONDS * 2 - 4);
        assertThat(lowWaitsMillis).allSatisfy(wait -> assertThat(wait).isLessThanOrEqualTo(BOUND.toMillis()));
        assertThat(highDone.get()).isGreaterThan(SECONDS * 200);
    }

    /** Enqueues {@code perTick} jobs every 100 ms until told to stop. */
    private void produce(
            Postbox postbox, AtomicBoolean producing, String lane, int priority, int perTick, AtomicInteger counter) {
        long next = System.nanoTime();
        while (producing.get()) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < perTick; i++) {
                batch.add(JobRequest.builder("work")
                        .payload(new Work(lane, System.currentTimeMillis()))
                        .priority(priority)
                        .build());
            }
            tx.executeWithoutResult(s -> postbox.outbox().enqueueAll(batch));
            if (counter != null) {
                counter.addAndGet(perTick);
            }
            next += Duration.ofMillis(100).toNanos();
            LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
        }
    }

    @Test
    void backloggedLanesShareEveryClaimByWeight() {
        Postbox producer = Postbox.builder(dataSource).build();
        tx.executeWithoutResult(s -> {
            List<JobRequest> jobs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                jobs.add(JobRequest.builder("w").payload(Map.of()).priority(5).build());
                jobs.add(JobRequest.builder("w").payload(Map.of()).priority(0).build());
                jobs.add(JobRequest.builder("w").payload(Map.of()).priority(-5).build());
            }
            producer.outbox().enqueueAll(jobs);
        });
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        AtomicInteger seen = new AtomicInteger();
        track(Postbox.builder(dataSource)
                        .handler("w", job -> {
                            if (seen.incrementAndGet() <= 1000) {
                                order.add(jdbc.queryForObject(
                                        "SELECT priority FROM outbox_job WHERE id = ?", Integer.class, job.id()));
                            }
                        })
                        .config(fastConfig()
                                .concurrency(1)
                                .claimBatchSize(10)
                                .prefetch(0)
                                .laneWeights(60, 30, 10)
                                .build())
                        .build())
                .start();

        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() >= 1000);

        long high = order.stream().filter(p -> p > 0).count();
        long normal = order.stream().filter(p -> p == 0).count();
        long low = order.stream().filter(p -> p < 0).count();
        assertThat(high).isBetween(570L, 630L);
        assertThat(normal).isBetween(270L, 330L);
        assertThat(low).isBetween(80L, 120L);
    }

    @Test
    void withinALaneAHigherPriorityIsAHeadStartInSeconds() {
        Postbox postbox =
                track(Postbox.builder(dataSource).handler("w", job -> {}).build());
        tx.executeWithoutResult(s -> {
            postbox.outbox()
                    .enqueue(JobRequest.builder("w")
                            .payload(Map.of("n", "old-p1"))
                            .priority(1)
                            .runAt(java.time.Instant.now().minusSeconds(30))
                            .build());
            postbox.outbox()
                    .enqueue(JobRequest.builder("w")
                            .payload(Map.of("n", "new-p20"))
                            .priority(20)
                            .build());
            postbox.outbox()
                    .enqueue(JobRequest.builder("w")
                            .payload(Map.of("n", "new-p5"))
                            .priority(5)
                            .build());
        });

        List<String> order = jdbc.queryForList(
                "SELECT payload->>'n' FROM outbox_job WHERE lane = 1 ORDER BY sort_at, id", String.class);

        // p20 is 20 s ahead of now, p5 5 s; the p1 job became due 30 s ago, so it stays first.
        assertThat(order).containsExactly("old-p1", "new-p20", "new-p5");
    }
}
