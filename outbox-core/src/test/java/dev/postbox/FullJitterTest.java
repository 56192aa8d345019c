package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * docs/guarantees.md §5: retries wait {@code random(0, min(cap, base·2^(n-1)))}
 * after failed attempt n, so jobs that fail together do not retry together.
 */
class FullJitterTest extends DatabaseTest {

    private static final int JOBS = 1_000;
    private static final Duration BASE = Duration.ofSeconds(10);
    private static final Duration CAP = Duration.ofMinutes(1);

    @Test
    void thousandJobsFailingTogetherGetRetryTimesSpreadOverTheWindow() {
        Postbox producer = Postbox.builder(dataSource).build();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            requests.add(JobRequest.of("flaky", Map.of("n", i)));
        }
        tx.executeWithoutResult(s -> producer.outbox().enqueueAll(requests));

        AtomicBoolean paused = new AtomicBoolean();
        Postbox worker = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("flaky", job -> {
                            // All jobs were claimed in one statement; pausing the queue keeps the
                            // ones whose retry is due quickly from being run (and rescheduled) again.
                            if (paused.compareAndSet(false, true)) {
                                producer.admin().pause(JobRequest.DEFAULT_QUEUE);
                            }
                            throw new IllegalStateException("downstream unavailable");
                        })
                        .retryPolicy(RetryPolicy.custom()
                                .base(BASE)
                                .cap(CAP)
                                .maxAttempts(8)
                                .build()))
                // the engine default differs, so the per-kind policy is what is measured
                .config(fastConfig()
                        .claimBatchSize(JOBS)
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofMillis(100))
                                .cap(Duration.ofMillis(100))
                                .build())
                        .build())
                .build());

        assertThat(worker.runDueJobs()).isEqualTo(JOBS);

        // The delay each job got, exactly: the retry and its attempt row share one statement's now().
        List<Long> delays = jdbc.queryForList(
                "SELECT (extract(epoch FROM j.run_at - a.finished_at) * 1000)::bigint FROM outbox_job j"
                        + " JOIN outbox_attempt a ON a.job_id = j.id AND a.attempt = 1 AND a.outcome = 'retry'"
                        + " WHERE j.state = 'retry' AND j.attempts = 1",
                Long.class);
        assertThat(delays).hasSize(JOBS);
        long ceiling = BASE.toMillis(); // after attempt 1: min(cap, base * 2^0)
        assertThat(delays).allSatisfy(d -> assertThat(d).isBetween(0L, ceiling));

        int[] buckets = new int[(int) (ceiling / 100) + 1];
        delays.forEach(d -> buckets[(int) (d / 100)]++);
        int fullest = 0;
        int used = 0;
        for (int n : buckets) {
            fullest = Math.max(fullest, n);
            used += n > 0 ? 1 : 0;
        }
        assertThat(fullest).as("jobs in the fullest 100 ms bucket").isLessThanOrEqualTo(JOBS * 5 / 100);
        assertThat(used).as("100 ms buckets used, of 100").isGreaterThanOrEqualTo(90);
        assertThat(delays.stream().mapToLong(Long::longValue).min().orElseThrow())
                .as("shortest delay")
                .isLessThan(ceiling / 10);
        assertThat(delays.stream().mapToLong(Long::longValue).max().orElseThrow())
                .as("longest delay")
                .isGreaterThan(ceiling * 9 / 10);
        double mean = delays.stream().mapToLong(Long::longValue).average().orElseThrow();
        assertThat(mean).as("mean delay, uniform over [0, ceiling]").isBetween(ceiling * 0.4, ceiling * 0.6);
    }

    @Test
    void delayAfterStaysWithinZeroAndTheExponentialCeiling() {
        RetryPolicy policy = RetryPolicy.custom()
                .base(Duration.ofMillis(250))
                .cap(Duration.ofSeconds(30))
                .build();
        SplittableRandom random = new SplittableRandom(42);
        for (int n = 1; n <= 40; n++) {
            long expectedCeiling = Math.min(30_000L, 250L * (1L << Math.min(n - 1, 20)));
            assertThat(policy.ceilingAfter(n))
                    .as("ceiling after attempt %d", n)
                    .isEqualTo(Duration.ofMillis(expectedCeiling));
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int i = 0; i < 2_000; i++) {
                long d = policy.delayAfter(n, random).toMillis();
                assertThat(d).as("delay after attempt %d", n).isBetween(0L, expectedCeiling);
                min = Math.min(min, d);
                max = Math.max(max, d);
            }
            assertThat(min)
                    .as("full jitter reaches near 0 after attempt %d", n)
                    .isLessThanOrEqualTo(expectedCeiling / 20);
            assertThat(max)
                    .as("full jitter reaches near the ceiling after attempt %d", n)
                    .isGreaterThanOrEqualTo(expectedCeiling * 19 / 20);
        }
        assertThat(policy.ceilingAfter(1)).isEqualTo(Duration.ofMillis(250));
        assertThat(policy.ceilingAfter(2)).isEqualTo(Duration.ofMillis(500));
        assertThat(policy.ceilingAfter(7)).isEqualTo(Duration.ofMillis(250 * 64));
        assertThat(policy.ceilingAfter(8)).as("250 ms * 2^7 is past the cap").isEqualTo(policy.cap());
    }

    @Test
    void ceilingNeverOverflowsForHugeAttemptsOrBases() {
        RetryPolicy policy = RetryPolicy.custom()
                .base(Duration.ofDays(1))
                .cap(Duration.ofDays(365))
                .maxAttempts(1000)
                .build();
        for (int n = 1; n <= 1000; n++) {
            Duration ceiling = policy.ceilingAfter(n);
            assertThat(ceiling).as("ceiling after attempt %d", n).isBetween(Duration.ofDays(1), Duration.ofDays(365));
            assertThat(policy.delayAfter(n, new SplittableRandom(n))).isBetween(Duration.ZERO, ceiling);
        }
        assertThat(policy.ceilingAfter(1000)).isEqualTo(Duration.ofDays(365));
        assertThat(policy.ceilingAfter(0))
                .as("attempt numbers start at 1; 0 is treated as 1")
                .isEqualTo(Duration.ofDays(1));
    }
}
