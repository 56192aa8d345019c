package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: one tenant's flood never delays another tenant. Tenant A enqueues {@value #FLOOD} jobs
 * at once (the 100,000 are the benchmark scenario {@code tenant-flood}; this size keeps CI
 * short and still gives A a backlog of seconds), tenant B enqueues 10 jobs a second meanwhile, and
 * B's enqueue-to-start p99 stays within 100 ms while A drains.
 */
class TenantFloodTest extends DatabaseTest {

    private static final int FLOOD = 30_000;

    @Test
    void aFloodingTenantDoesNotDelayAQuietOne() throws Exception {
        AtomicInteger floodDone = new AtomicInteger();
        Map<Integer, Long> quietStarted = new ConcurrentHashMap<>();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("m", job -> {
                    if (job.tenant().orElseThrow().equals("flood")) {
                        floodDone.incrementAndGet();
                    } else {
                        quietStarted.put(
                                job.payload(Map.class).get("n") instanceof Number n ? n.intValue() : -1,
                                System.nanoTime());
                    }
                })
                .config(fastConfig().build())
                .build());
        postbox.start();

        List<JobRequest> flood = new ArrayList<>(FLOOD);
        for (int i = 0; i < FLOOD; i++) {
            flood.add(JobRequest.builder("m")
                    .payload(Map.of("n", i))
                    .tenant("flood")
                    .build());
        }
        tx.executeWithoutResult(s -> postbox.outbox().enqueueAll(flood));
        long floodCommitted = System.nanoTime();

        // Tenant B: one job every 100 ms while A drains, each timed from just before its enqueue.
        Map<Integer, Long> quietEnqueued = new ConcurrentHashMap<>();
        Map<Integer, Long> quietCommitted = new ConcurrentHashMap<>();
        AtomicInteger seq = new AtomicInteger();
        AtomicLong floodDrained = new AtomicLong();
        ScheduledExecutorService quiet = Executors.newSingleThreadScheduledExecutor();
        try {
            quiet.scheduleAtFixedRate(
                    () -> {
                        if (floodDone.get() >= FLOOD) {
                            return;
                        }
                        int n = seq.getAndIncrement();
                        quietEnqueued.put(n, System.nanoTime());
                        tx.executeWithoutResult(s -> postbox.outbox()
                                .enqueue(JobRequest.builder("m")
                                        .payload(Map.of("n", n))
                                        .tenant("quiet")
                                        .build()));
                        quietCommitted.put(n, System.nanoTime());
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofMinutes(3)).until(() -> floodDone.get() >= FLOOD);
            floodDrained.set(System.nanoTime());
        } finally {
            quiet.shutdown();
            quiet.awaitTermination(10, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> quietStarted.keySet().containsAll(quietEnqueued.keySet()));

        // The quiet tenant's jobs enqueued while the flood had a backlog.
        List<Long> latencies = new ArrayList<>();
        List<Long> commits = new ArrayList<>();
        List<Long> afterCommit = new ArrayList<>();
        quietEnqueued.forEach((n, enqueued) -> {
            if (enqueued >= floodCommitted && enqueued < floodDrained.get()) {
                latencies.add(TimeUnit.NANOSECONDS.toMillis(quietStarted.get(n) - enqueued));
                commits.add(TimeUnit.NANOSECONDS.toMillis(quietCommitted.get(n) - enqueued));
                afterCommit.add(TimeUnit.NANOSECONDS.toMillis(quietStarted.get(n) - quietCommitted.get(n)));
            }
        });
        latencies.sort(null);
        commits.sort(null);
        afterCommit.sort(null);
        double drainSeconds = (floodDrained.get() - floodCommitted) / 1e9;
        assertThat(latencies)
                .as("quiet jobs enqueued during the flood's drain of %.1f s", drainSeconds)
                .hasSizeGreaterThanOrEqualTo(10);
        long p99 = latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1);
        System.out.printf(
                "tenant flood: %d jobs drained in %.1f s (%.0f/s); quiet tenant: %d jobs, p50 %d ms, p99 %d ms, max %d ms%n",
                FLOOD,
                drainSeconds,
                FLOOD / drainSeconds,
                latencies.size(),
                latencies.get(latencies.size() / 2),
                p99,
                latencies.get(latencies.size() - 1));
        // Where the time goes: the enqueue's own commit, and from the commit to the handler's start.
        System.out.printf(
                "  enqueue until committed: p50 %d ms, max %d ms; committed until started: p50 %d ms, max %d ms%n",
                commits.get(commits.size() / 2),
                commits.get(commits.size() - 1),
                afterCommit.get(afterCommit.size() / 2),
                afterCommit.get(afterCommit.size() - 1));
        assertThat(p99)
                .as("quiet tenant's enqueue-to-start p99 (ms): %s", latencies)
                .isLessThanOrEqualTo(100);
    }
}
