package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import dev.postbox.internal.JobStore;
import dev.postbox.internal.LeaseStore;
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/guarantees.md §2: a worker that dies mid-job loses its claim after the visibility
 * timeout and the job runs again elsewhere; a live worker keeps a long job's lease by heartbeats.
 */
class LeaseExpiryTest extends DatabaseTest {

    private static final Duration VISIBILITY = Duration.ofSeconds(1);

    private PostboxConfig.Builder leaseConfig(String workerId) {
        return fastConfig()
                .workerId(workerId)
                .visibilityTimeout(VISIBILITY)
                .heartbeatInterval(Duration.ofMillis(200))
                .rescueInterval(Duration.ofMillis(100))
                // the rescuer delays a rescued job by full jitter over [0, base]: keep it short
                .retryPolicy(RetryPolicy.custom()
                        .base(Duration.ofMillis(50))
                        .cap(Duration.ofMillis(100))
                        .build());
    }

    @Test
    void jobOfACrashedWorkerRunsAgainAfterTheVisibilityTimeout() throws Exception {
        Postbox producer = Postbox.builder(dataSource).build();
        long id = enqueueCommitted(producer.outbox(), JobRequest.of("work", Map.of("n", 1)))
                .jobId();

        // A worker claims the job, starts it (its start mark is written) and dies: it never
        // completes, fails or heartbeats.
        List<ClaimedJob> claimed;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            JobStore store = new JobStore();
            ClaimStore claims = new ClaimStore(JsonCodec.jackson());
            LeaseStore leases = new LeaseStore();
            claimed = claims.claim(c, "default", 10, "crashed-worker", VISIBILITY);
            assertThat(claimed).extracting(ClaimedJob::id).containsExactly(id);
            assertThat(leases.markStartedNow(c, claimed.get(0))).isTrue();
        }
        Timestamp leaseUntil =
                jdbc.queryForObject("SELECT lease_until FROM outbox_job WHERE id = ?", Timestamp.class, id);

        ConcurrentLinkedQueue<Integer> attemptsSeen = new ConcurrentLinkedQueue<>();
        Postbox survivor = track(Postbox.builder(dataSource)
                .handler("work", job -> attemptsSeen.add(job.attempt()))
                .config(leaseConfig("survivor").build())
                .build());
        survivor.start();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ? AND state = 'done'", id) == 1);

        assertThat(attemptsSeen)
                .as("the survivor ran the job once, as its second attempt")
                .containsExactly(2);
        assertThat(jdbc.queryForObject("SELECT attempts FROM outbox_job_archive WHERE id = ?", Integer.class, id))
                .isEqualTo(2);
        Map<String, Object> expiry = jdbc.queryForMap(
                "SELECT attempt, worker, lease_token, finished_at FROM outbox_attempt"
                        + " WHERE job_id = ? AND outcome = 'lease_expired'",
                id);
        assertThat(expiry)
                .containsEntry("attempt", 1)
                .containsEntry("worker", "crashed-worker")
                .containsEntry("lease_token", claimed.get(0).token());
        assertThat((Timestamp) expiry.get("finished_at"))
                .as("rescued only after the lease ran out (database clock)")
                .isAfterOrEqualTo(leaseUntil);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }

    @Test
    void longJobWithHeartbeatsKeepsItsLeasePastThreeVisibilityTimeouts() {
        Postbox producer = Postbox.builder(dataSource).build();

        AtomicInteger executions = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        JobHandler slow = job -> {
            executions.incrementAndGet();
            started.countDown();
            if (!finish.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test never released the job");
            }
        };
        // Two engines poll and rescue all the time; whichever holds the job must keep it.
        Postbox a = track(Postbox.builder(dataSource)
                .handler("long", slow)
                .config(leaseConfig("engine-a").build())
                .build());
        Postbox b = track(Postbox.builder(dataSource)
                .handler("long", slow)
                .config(leaseConfig("engine-b").build())
                .build());
        a.start();
        b.start();
        // Both engines have run their start-up maintenance (partition DDL, registration), which
        // shares the thread with the heartbeat; only then does the 1 s lease start to count.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_worker WHERE id IN ('engine-a', 'engine-b')") == 2);
        long id = enqueueCommitted(producer.outbox(), JobRequest.of("long", Map.of("n", 1)))
                .jobId();

        await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
        Map<String, Object> claim = jdbc.queryForMap("SELECT lease_token, started_at FROM outbox_job WHERE id = ?", id);

        // Let the job run for 3.5 visibility timeouts (database clock), checking the lease on the way.
        AtomicBoolean leaseLost = new AtomicBoolean();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    Map<String, Object> now = jdbc.queryForMap(
                            "SELECT state, lease_token, lease_until > clock_timestamp() AS held,"
                                    + " clock_timestamp() - started_at > interval '3500 milliseconds' AS long_enough"
                                    + " FROM outbox_job WHERE id = ?",
                            id);
                    if (!"running".equals(now.get("state"))
                            || !claim.get("lease_token").equals(now.get("lease_token"))
                            || !Boolean.TRUE.equals(now.get("held"))) {
                        leaseLost.set(true);
                    }
                    return leaseLost.get() || Boolean.TRUE.equals(now.get("long_enough"));
                });
        assertThat(leaseLost)
                .as("the lease lapsed or changed hands while the job ran")
                .isFalse();

        finish.countDown();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ? AND state = 'done'", id) == 1);

        assertThat(executions).as("ran exactly once").hasValue(1);
        assertThat(jdbc.queryForObject("SELECT attempts FROM outbox_job_archive WHERE id = ?", Integer.class, id))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE job_id = ? AND outcome = 'lease_expired'", id))
                .isZero();
    }
}
