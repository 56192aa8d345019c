package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import dev.postbox.internal.JobStore;
import dev.postbox.internal.LeaseStore;
import dev.postbox.internal.RetryPolicies;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Batch handlers (issue 17) against real PostgreSQL: claimed jobs of a kind are handed over
 * together, the done ones complete together in one fenced statement, and each failed member keeps
 * its own retry or dead letter.
 */
class BatchHandlerTest extends DatabaseTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final List<List<Long>> batches = new CopyOnWriteArrayList<>();

    @BeforeEach
    void noBatchesYet() {
        batches.clear(); // one instance serves every test of the class
    }

    private List<Long> enqueue(String kind, int n) {
        Postbox producer = Postbox.builder(dataSource).build();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            requests.add(JobRequest.of(kind, Map.of("n", i)));
        }
        return tx.execute(s -> producer.outbox().enqueueAll(requests)).stream()
                .map(EnqueueResult::jobId)
                .toList();
    }

    private void record(JobBatch batch) {
        batches.add(batch.jobs().stream().map(Job::id).toList());
    }

    private Postbox worker(BatchHandlerRegistration registration, PostboxListener listener) {
        return track(Postbox.builder(dataSource)
                .batchHandler(registration)
                .listener(listener)
                .config(fastConfig().build())
                .build());
    }

    private void dueNow() {
        jdbc.update("UPDATE outbox_job SET run_at = now() WHERE state = 'retry'");
    }

    @Test
    void claimedJobsOfAKindAreHandedOverTogetherAndCompleteInOneStatement() {
        List<Long> ids = enqueue("index", 5);
        Postbox worker = worker(BatchHandlerRegistration.of("index", this::record), PostboxListener.NO_OP);

        assertThat(worker.runDueJobs()).isEqualTo(5);

        assertThat(batches).as("one call with every job, in claim order").containsExactly(ids);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"))
                .isEqualTo(5);
        assertThat(count("SELECT count(DISTINCT finished_at) FROM outbox_job_archive"))
                .as("one statement, one transaction: one now() for all five")
                .isOne();
    }

    @Test
    void batchesAreCutAtTheirMaximumSize() {
        List<Long> ids = enqueue("index", 7);
        Postbox worker =
                worker(BatchHandlerRegistration.of("index", this::record).maxBatchSize(3), PostboxListener.NO_OP);

        assertThat(worker.runDueJobs()).isEqualTo(7);

        assertThat(batches).containsExactly(ids.subList(0, 3), ids.subList(3, 6), ids.subList(6, 7));
    }

    @Test
    void aRunningWorkerTakesTheWaitingJobsOfTheKindTogether() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Postbox worker = track(Postbox.builder(dataSource)
                .batchHandler(BatchHandlerRegistration.of("index", batch -> {
                    record(batch);
                    if (batches.size() == 1) {
                        release.await(20, TimeUnit.SECONDS); // hold the only worker
                    }
                }))
                .handler("other", job -> {})
                .config(fastConfig().concurrency(1).build())
                .build());
        worker.start();
        List<Long> first = enqueue("index", 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> batches.size() == 1);
        // While the only worker is busy, the next jobs are claimed and wait in its buffer, mixed
        // with a job of another kind.
        List<Long> waiting = new ArrayList<>(enqueue("index", 2));
        enqueue("other", 1);
        waiting.addAll(enqueue("index", 2));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> count("SELECT count(*) FROM outbox_job WHERE state = 'running'") == 6);
        release.countDown();

        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM outbox_job") == 0);
        assertThat(batches).containsExactly(first, waiting);
    }

    @Test
    void aFailedMemberIsRetriedAloneAndADeadOneDeadLetteredWhileTheOthersComplete() {
        List<Long> ids = enqueue("index", 4);
        long flaky = ids.get(1);
        long poison = ids.get(2);
        Postbox worker = worker(
                BatchHandlerRegistration.of("index", batch -> {
                    record(batch);
                    for (Job job : batch.jobs()) {
                        if (job.id() == flaky && job.attempt() == 1) {
                            batch.fail(job, new IllegalStateException("search index busy"));
                        } else if (job.id() == poison) {
                            batch.fail(job, new PermanentJobFailure("document too large"));
                        }
                    }
                }),
                PostboxListener.NO_OP);

        worker.runDueJobs();

        assertThat(jdbc.queryForList("SELECT id FROM outbox_job_archive ORDER BY id", Long.class))
                .containsExactly(ids.get(0), ids.get(3));
        assertThat(jdbc.queryForMap("SELECT state, attempts, last_error FROM outbox_job WHERE id = ?", flaky))
                .containsEntry("state", "retry")
                .containsEntry("attempts", 1)
                .containsEntry("last_error", "java.lang.IllegalStateException: search index busy");
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_dead_letter WHERE id = ?", String.class, poison))
                .contains("document too large");

        dueNow();
        worker.runDueJobs();

        assertThat(batches).as("the retry runs alone").containsExactly(ids, List.of(flaky));
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(count("SELECT attempts FROM outbox_job_archive WHERE id = ?", flaky))
                .isEqualTo(2);
    }

    @Test
    void aThrowingHandlerFailsEveryMemberNotFailedAlready() {
        List<Long> ids = enqueue("index", 3);
        Postbox worker = worker(
                BatchHandlerRegistration.of("index", batch -> {
                    batch.fail(batch.jobs().get(0), new PermanentJobFailure("rejected"));
                    throw new IllegalStateException("connection lost");
                }),
                PostboxListener.NO_OP);

        worker.runDueJobs();

        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE id = ?", ids.get(0)))
                .isOne();
        assertThat(jdbc.queryForList("SELECT last_error FROM outbox_job ORDER BY id", String.class))
                .containsExactly(
                        "java.lang.IllegalStateException: connection lost",
                        "java.lang.IllegalStateException: connection lost");
    }

    @Test
    void aStaleTokenInABatchIsFencedWhileTheOtherMembersComplete() {
        List<Long> ids = enqueue("index", 3);
        long takenOverDone = ids.get(1);
        long takenOverFailed = ids.get(2);
        FencingTest.RecordingListener listener = new FencingTest.RecordingListener();
        Postbox worker = worker(
                BatchHandlerRegistration.of("index", batch -> {
                    // While the batch runs, two of its leases are taken over by another worker.
                    takeOver(takenOverDone);
                    takeOver(takenOverFailed);
                    batch.fail(
                            batch.jobs().stream()
                                    .filter(j -> j.id() == takenOverFailed)
                                    .findFirst()
                                    .orElseThrow(),
                            new IllegalStateException("late failure"));
                }),
                listener);

        worker.runDueJobs();

        assertThat(jdbc.queryForList("SELECT id FROM outbox_job_archive", Long.class))
                .containsExactly(ids.get(0));
        assertThat(jdbc.queryForList("SELECT lease_owner FROM outbox_job ORDER BY id", String.class))
                .as("both still held, untouched, by their new owner")
                .containsExactly("new-owner", "new-owner");
        assertThat(jdbc.queryForList("SELECT last_error FROM outbox_job WHERE last_error IS NOT NULL", String.class))
                .isEmpty();
        assertThat(listener.stale).containsExactlyInAnyOrder(takenOverDone + ":complete", takenOverFailed + ":fail");
        assertThat(listener.completed).hasValue(1);
    }

    @Test
    void anExpiredMemberIsArchivedUnrunAndNotHandedOver() {
        List<Long> live = enqueue("index", 2);
        Postbox producer = Postbox.builder(dataSource).build();
        long expired = enqueueCommitted(
                        producer.outbox(),
                        JobRequest.builder("index")
                                .payload(Map.of("n", "late"))
                                .expiresAt(Instant.now().minusSeconds(60))
                                .build())
                .jobId();
        Postbox worker = worker(BatchHandlerRegistration.of("index", this::record), PostboxListener.NO_OP);

        assertThat(worker.runDueJobs()).isEqualTo(3);

        assertThat(batches).containsExactly(live);
        assertThat(jdbc.queryForObject("SELECT state FROM outbox_job_archive WHERE id = ?", String.class, expired))
                .isEqualTo("expired");
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"))
                .isEqualTo(2);
    }

    @Test
    void badRegistrationsAndOutcomesAreRefusedWithTheFix() {
        assertThatThrownBy(() -> BatchHandlerRegistration.of("index", b -> {}).maxBatchSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBatchSize of batch handler 'index' must be from 1 to 10000, got 0");
        assertThatThrownBy(() -> Postbox.builder(dataSource)
                        .handler("index", job -> {})
                        .batchHandler(BatchHandlerRegistration.of("index", b -> {})))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kind 'index' is already registered");

        enqueue("index", 1);
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        List<JobBatch> kept = new CopyOnWriteArrayList<>();
        Job stranger = Job.builder(424242L, "index", "{}", JsonCodec.jackson())
                .attempt(1, 5)
                .build();
        worker(
                        BatchHandlerRegistration.of("index", batch -> {
                            kept.add(batch);
                            try {
                                batch.fail(stranger, new IllegalStateException("x"));
                            } catch (IllegalArgumentException e) {
                                refused.add(e);
                            }
                        }),
                        PostboxListener.NO_OP)
                .runDueJobs();
        assertThat(refused)
                .singleElement()
                .extracting(Throwable::getMessage)
                .asString()
                .contains("job 424242 is not a member of this batch of kind 'index'");
        JobBatch finished = kept.get(0);
        assertThatThrownBy(() -> finished.fail(finished.jobs().get(0), new IllegalStateException("too late")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has returned");
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'"))
                .isOne();
    }

    /** Another worker takes the job over: its lease expires, the rescuer returns it, it is claimed again. */
    private void takeOver(long id) throws SQLException {
        JobStore store = new JobStore();
        ClaimStore claims = new ClaimStore(JsonCodec.jackson());
        LeaseStore leases = new LeaseStore();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (var s = c.createStatement()) {
                s.executeUpdate("UPDATE outbox_job SET lease_until = now() - interval '1 second' WHERE id = " + id);
            }
            assertThat(leases.rescue(
                                    c,
                                    100,
                                    new RetryPolicies(
                                            RetryPolicy.custom()
                                                    .base(Duration.ofMillis(1))
                                                    .cap(Duration.ofMillis(1))
                                                    .build(),
                                            Map.of()),
                                    false,
                                    true)
                            .returned())
                    .isOne();
            try (var s = c.createStatement()) {
                s.executeUpdate("UPDATE outbox_job SET run_at = now() WHERE id = " + id);
            }
            List<ClaimedJob> claimed = claims.claim(c, "default", 10, "new-owner", LEASE);
            assertThat(claimed).extracting(ClaimedJob::id).containsExactly(id);
        }
    }
}
