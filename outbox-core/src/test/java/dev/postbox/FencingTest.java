package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import dev.postbox.internal.JobStore;
import dev.postbox.internal.LeaseStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docs/guarantees.md §4: every write after the claim presents the fencing token; a stale
 * token changes nothing, and a transactional handler whose lease was taken over commits nothing.
 */
class FencingTest extends DatabaseTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final JobStore store = new JobStore();

    private final ClaimStore claims = new ClaimStore(JsonCodec.jackson());

    private final LeaseStore leases = new LeaseStore();

    @BeforeAll
    void businessTable() {
        jdbc.execute("CREATE TABLE business_effect (job_id bigint PRIMARY KEY)");
    }

    @BeforeEach
    void emptyBusinessTable() {
        jdbc.execute("TRUNCATE business_effect");
    }

    /** Events of interest from the engine. */
    static final class RecordingListener implements PostboxListener {
        final ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
        final AtomicInteger completed = new AtomicInteger();

        @Override
        public void staleToken(long jobId, String operation) {
            stale.add(jobId + ":" + operation);
        }

        @Override
        public void completed(Job job, Duration duration) {
            completed.incrementAndGet();
        }
    }

    private long enqueue(String kind) {
        Postbox producer = Postbox.builder(dataSource).build();
        return enqueueCommitted(producer.outbox(), JobRequest.of(kind, Map.of("n", 1)))
                .jobId();
    }

    private ClaimedJob claim(String workerId) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            List<ClaimedJob> claimed = claims.claim(c, "default", 10, workerId, LEASE);
            assertThat(claimed).as("claim by " + workerId).hasSize(1);
            return claimed.get(0);
        }
    }

    /**
     * What happens when a worker hangs: its lease expires, the rescuer returns the job to the
     * queue, and another worker claims it under a new token. Uses a connection of its own, as
     * another process would.
     */
    private ClaimedJob takeOver(long id, String newOwner) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (var s = c.createStatement()) {
                s.executeUpdate("UPDATE outbox_job SET lease_until = now() - interval '1 second' WHERE id = " + id);
            }
            LeaseStore.Rescued rescued = leases.rescue(
                    c,
                    100,
                    new dev.postbox.internal.RetryPolicies(
                            RetryPolicy.custom()
                                    .base(Duration.ofMillis(1))
                                    .cap(Duration.ofMillis(1))
                                    .build(),
                            Map.of()),
                    false,
                    true);
            // No start mark was written for the hung worker's attempt (no start-mark tick ran), so
            // the rescuer refunds it and the job is back in line at once.
            assertThat(rescued.returned()).isEqualTo(1);
            try (var s = c.createStatement()) {
                s.executeUpdate("UPDATE outbox_job SET run_at = now() WHERE id = " + id);
            }
            List<ClaimedJob> claimed = claims.claim(c, "default", 10, newOwner, LEASE);
            assertThat(claimed).extracting(ClaimedJob::id).containsExactly(id);
            return claimed.get(0);
        }
    }

    private String snapshot(long id) {
        return jdbc.queryForObject("SELECT row_to_json(j)::text FROM outbox_job j WHERE id = ?", String.class, id);
    }

    private long sideEffects() {
        return count("SELECT (SELECT count(*) FROM outbox_job_archive) + (SELECT count(*) FROM outbox_dead_letter)"
                + " + (SELECT count(*) FROM outbox_attempt)");
    }

    @Test
    void everyWriteWithAStaleTokenChangesNothing() throws Exception {
        long id = enqueue("work");
        ClaimedJob stale = claim("hung-worker");
        ClaimedJob current = takeOver(id, "new-owner");
        assertThat(current.token()).isNotEqualTo(stale.token());
        String before = snapshot(id);
        long effectsBefore = sideEffects();
        JobStore.AttemptRecord attempt = new JobStore.AttemptRecord("hung-worker", "boom", 5, null, null);

        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            assertThat(store.finish(c, List.of(new JobStore.Completion(id, stale.token(), 5)), "done", true))
                    .as("complete")
                    .isEmpty();
            assertThat(snapshot(id)).isEqualTo(before);
            assertThat(store.retry(c, stale, Duration.ZERO, attempt, true))
                    .as("fail")
                    .isFalse();
            assertThat(snapshot(id)).isEqualTo(before);
            assertThat(store.dead(c, stale, attempt, null, true))
                    .as("dead-letter")
                    .isFalse();
            assertThat(snapshot(id)).isEqualTo(before);
            assertThat(leases.heartbeat(c, List.of(stale), Duration.ofHours(1)))
                    .as("heartbeat: the stale claim is reported lost")
                    .isEqualTo(new LeaseStore.LeaseCheck(Set.of(), Set.of()));
            assertThat(snapshot(id)).isEqualTo(before);
            assertThat(leases.markStartedNow(c, stale)).as("start mark").isFalse();
            assertThat(leases.markStarted(c, List.of(stale), System.nanoTime()))
                    .as("batched start mark")
                    .isEmpty();
            assertThat(snapshot(id)).isEqualTo(before);
            assertThat(store.snooze(c, List.of(stale), Duration.ZERO, "hung-worker", "release", false, true))
                    .as("snooze / release")
                    .isEmpty();
            assertThat(snapshot(id)).isEqualTo(before);
        }
        assertThat(sideEffects()).as("no archive, dead letter or attempt row").isEqualTo(effectsBefore);

        // The current owner's token still works, so the calls above were refused for their token only.
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            assertThat(leases.heartbeat(c, List.of(current), LEASE))
                    .isEqualTo(new LeaseStore.LeaseCheck(Set.of(id), Set.of(id)));
            assertThat(leases.markStartedNow(c, current)).isTrue();
            assertThat(store.finish(c, List.of(new JobStore.Completion(id, current.token(), 5)), "done", true))
                    .containsExactly(id);
        }
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE id = ? AND state = 'done'", id))
                .isOne();
    }

    @Test
    void transactionalHandlerWhoseLeaseWasTakenOverCommitsNothing() {
        long id = enqueue("reserve");
        RecordingListener listener = new RecordingListener();
        AtomicInteger runs = new AtomicInteger();
        Postbox worker = track(Postbox.builder(dataSource)
                .listener(listener)
                .handler(HandlerRegistration.of("reserve", job -> {
                            runs.incrementAndGet();
                            // While the handler runs, its lease is taken over by another worker ...
                            takeOver(job.id(), "new-owner");
                            // ... and then it writes its business effect in the job's transaction.
                            jdbc.update("INSERT INTO business_effect VALUES (?)", job.id());
                        })
                        .transactional())
                .config(fastConfig().workerId("slow-worker").build())
                .build());

        assertThat(worker.runDueJobs()).isOne();

        assertThat(runs).hasValue(1);
        assertThat(count("SELECT count(*) FROM business_effect"))
                .as("the handler's write rolled back")
                .isZero();
        Map<String, Object> row =
                jdbc.queryForMap("SELECT state, lease_owner, attempts FROM outbox_job WHERE id = ?", id);
        assertThat(row)
                .as("the job is still there for its new owner; the hung attempt was refunded (its start"
                        + " was never recorded), so the new claim is attempt 1")
                .containsEntry("state", "running")
                .containsEntry("lease_owner", "new-owner")
                .containsEntry("attempts", 1);
        assertThat(count("SELECT count(*) FROM outbox_job_archive")).isZero();
        assertThat(listener.stale).containsExactly(id + ":complete");
        assertThat(listener.completed).hasValue(0);
    }

    @Test
    void transactionalHandlerWithItsLeaseCommitsItsWriteWithTheCompletion() {
        long id = enqueue("reserve");
        RecordingListener listener = new RecordingListener();
        Postbox worker = track(Postbox.builder(dataSource)
                .listener(listener)
                .handler(HandlerRegistration.of(
                                "reserve", job -> jdbc.update("INSERT INTO business_effect VALUES (?)", job.id()))
                        .transactional())
                .config(fastConfig().build())
                .build());

        assertThat(worker.runDueJobs()).isOne();

        assertThat(count("SELECT count(*) FROM business_effect WHERE job_id = ?", id))
                .isOne();
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE id = ? AND state = 'done'", id))
                .isOne();
        assertThat(listener.stale).isEmpty();
        assertThat(listener.completed).hasValue(1);
    }

    @Test
    void plainHandlerWhoseLeaseWasTakenOverIsFencedOffOnCompletionAndOnFailure() {
        long completing = enqueue("complete-late");
        long failing = enqueue("fail-late");
        RecordingListener listener = new RecordingListener();
        Postbox worker = track(Postbox.builder(dataSource)
                .listener(listener)
                .handler("complete-late", job -> takeOver(job.id(), "new-owner"))
                .handler("fail-late", job -> {
                    takeOver(job.id(), "new-owner");
                    throw new IllegalStateException("failed after losing the lease");
                })
                .config(fastConfig().workerId("slow-worker").build())
                .build());

        assertThat(worker.runDueJobs()).isEqualTo(2);

        assertThat(jdbc.queryForList(
                        "SELECT id FROM outbox_job WHERE state = 'running' AND lease_owner = 'new-owner'"
                                + " AND run_at <= now() ORDER BY id",
                        Long.class))
                .as("both jobs stay with their new owner, untouched")
                .containsExactly(completing, failing);
        assertThat(count("SELECT count(*) FROM outbox_job_archive")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_job WHERE last_error LIKE '%losing the lease%'"))
                .isZero();
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE outcome IN ('done', 'retry', 'dead')"))
                .isZero();
        assertThat(listener.stale).containsExactlyInAnyOrder(completing + ":complete", failing + ":fail");
    }
}
