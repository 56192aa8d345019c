package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.ClaimedJob;
import dev.postbox.internal.JobStore;
import dev.postbox.internal.LeaseStore;
import dev.postbox.testing.SwitchableDataSource;
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionDefinition;

/**
 * Issue 11 / docs/guarantees.md §5: attempts are charged for started attempts only. A worker that dies (here: an
 * engine whose connections are all cut off at once, as SIGKILL would) costs the jobs in its buffer
 * nothing; an attempt whose start was recorded is charged; the cap ends a job whose leases keep
 * expiring before it starts.
 */
class AttemptAccountingTest extends DatabaseTest {

    private final JobStore store = new JobStore();

    private final ClaimStore claims = new ClaimStore(JsonCodec.jackson());

    private final LeaseStore leases = new LeaseStore();

    /** Short leases; rescues only when the test asks (the rescuer's first pass runs at start). */
    private PostboxConfig.Builder crashConfig(String workerId) {
        return fastConfig()
                .workerId(workerId)
                .visibilityTimeout(Duration.ofMillis(600))
                .heartbeatInterval(Duration.ofMillis(100))
                .rescueInterval(Duration.ofHours(1))
                .retryPolicy(RetryPolicy.custom()
                        .base(Duration.ofMillis(1))
                        .cap(Duration.ofMillis(1))
                        .build());
    }

    /** Rescues until no lease is left running. */
    private void rescueAll(Postbox rescuer) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            rescuer.rescueExpiredLeases();
            return count("SELECT count(*) FROM outbox_job WHERE state = 'running'") == 0;
        });
    }

    /**
     * A job of the kind that a worker claimed and died before starting: the rescuer refunds it and it
     * is suspect (its next start is written before its handler runs).
     */
    private long suspectJob(Postbox producer, String kind) throws Exception {
        long id = enqueueCommitted(producer.outbox(), JobRequest.of(kind, Map.of("n", 1)))
                .jobId();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            assertThat(claims.claim(c, "default", 10, "died-early", Duration.ofMillis(1)))
                    .extracting(ClaimedJob::id)
                    .containsExactly(id);
        }
        rescueAll(Postbox.builder(dataSource)
                .config(crashConfig("rescuer").build())
                .build());
        return id;
    }

    @Test
    void theBufferOfAWorkerThatDiesIsReturnedWithoutChargeAndTheStartedJobIsCharged() {
        Postbox producer = Postbox.builder(dataSource).build();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            requests.add(JobRequest.of("work", Map.of("n", i)));
        }
        List<Long> ids = tx.execute(s -> producer.outbox().enqueueAll(requests)).stream()
                .map(EnqueueResult::jobId)
                .toList();

        SwitchableDataSource doomedDb = new SwitchableDataSource(dataSource);
        AtomicLong first = new AtomicLong();
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch hold = new CountDownLatch(1);
        Postbox doomed = track(Postbox.builder(doomedDb)
                .handler("work", job -> {
                    if (first.compareAndSet(0, job.id())) {
                        firstRunning.countDown();
                        hold.await(30, TimeUnit.SECONDS);
                    }
                })
                .config(crashConfig("doomed")
                        .concurrency(1)
                        .prefetch(20)
                        .startMarkInterval(Duration.ofMillis(50))
                        .build())
                .build());
        try {
            doomed.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> firstRunning.getCount() == 0);
            // All 21 claimed; the running job's start recorded by the batched start marks.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> count("SELECT count(*) FROM outbox_job WHERE lease_owner = 'doomed'") == 21
                            && count("SELECT count(*) FROM outbox_job WHERE id = ? AND lease_started", first.get())
                                    == 1);
            long started = first.get();
            assertThat(count("SELECT count(*) FROM outbox_job WHERE lease_started"))
                    .as("only the running job is marked started")
                    .isOne();
            Map<Long, Timestamp> runAtBefore = new ConcurrentHashMap<>();
            jdbc.query("SELECT id, run_at FROM outbox_job", rs -> {
                runAtBefore.put(rs.getLong(1), rs.getTimestamp(2));
            });

            doomedDb.cutOff(); // SIGKILL: no release, no heartbeat, no outcome ever again
            Postbox rescuer = Postbox.builder(dataSource)
                    .config(crashConfig("rescuer").build())
                    .build();
            rescueAll(rescuer);

            assertThat(jdbc.queryForMap(
                            "SELECT state, attempts, unstarted_expiries FROM outbox_job WHERE id = ?", started))
                    .as("the started attempt is charged")
                    .containsEntry("state", "retry")
                    .containsEntry("attempts", 1)
                    .containsEntry("unstarted_expiries", 0);
            List<Map<String, Object>> buffered = jdbc.queryForList(
                    "SELECT id, state, attempts, unstarted_expiries, run_at FROM outbox_job WHERE id <> ?", started);
            assertThat(buffered).hasSize(20);
            for (Map<String, Object> row : buffered) {
                assertThat(row)
                        .as("buffered job %s: refunded, suspect, same place in line", row.get("id"))
                        .containsEntry("state", "pending")
                        .containsEntry("attempts", 0)
                        .containsEntry("unstarted_expiries", 1)
                        .containsEntry("run_at", runAtBefore.get((Long) row.get("id")));
            }
            assertThat(jdbc.queryForList(
                            "SELECT outcome || ':' || attempt || ':' || worker FROM outbox_attempt WHERE job_id = ?",
                            String.class,
                            started))
                    .containsExactly("lease_expired:1:doomed");
            assertThat(count("SELECT count(*) FROM outbox_attempt WHERE outcome = 'unstarted' AND attempt = 1"
                            + " AND worker = 'doomed' AND error LIKE '%not charged%'"))
                    .isEqualTo(20);
        } finally {
            hold.countDown();
        }

        // A survivor runs everything; the archive and the attempt log carry the charged count.
        Map<Long, Integer> attemptSeen = new ConcurrentHashMap<>();
        Postbox survivor = track(Postbox.builder(dataSource)
                .handler("work", job -> attemptSeen.put(job.id(), job.attempt()))
                .config(crashConfig("survivor").attemptLog(AttemptLogLevel.ALL).build())
                .build());
        survivor.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'") == 21);

        long started = first.get();
        assertThat(attemptSeen).hasSize(21);
        for (long id : ids) {
            int expected = id == started ? 2 : 1;
            assertThat(attemptSeen.get(id)).as("attempt of job %s", id).isEqualTo(expected);
            assertThat(jdbc.queryForObject("SELECT attempts FROM outbox_job_archive WHERE id = ?", Integer.class, id))
                    .as("archived attempts of job %s", id)
                    .isEqualTo(expected);
            assertThat(jdbc.queryForList(
                            "SELECT attempt FROM outbox_attempt WHERE job_id = ? AND outcome = 'done'",
                            Integer.class,
                            id))
                    .as("logged attempt of job %s", id)
                    .containsExactly(expected);
        }
        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
    }

    @Test
    void aSuspectJobIsMarkedStartedBeforeItsHandlerRunsAndOthersAreNot() throws Exception {
        Postbox producer = Postbox.builder(dataSource).build();
        long suspect = suspectJob(producer, "probe");
        assertThat(count("SELECT unstarted_expiries FROM outbox_job WHERE id = ?", suspect))
                .isOne();
        long innocent = enqueueCommitted(producer.outbox(), JobRequest.of("probe", Map.of("n", 2)))
                .jobId();

        // What the database says while each handler runs (batched marks are off: 1 h).
        Map<Long, Boolean> startRecordedAtHandler = new ConcurrentHashMap<>();
        Postbox worker = track(Postbox.builder(dataSource)
                .handler(
                        "probe",
                        job -> startRecordedAtHandler.put(
                                job.id(),
                                jdbc.queryForObject(
                                        "SELECT lease_started FROM outbox_job WHERE id = ?", Boolean.class, job.id())))
                .config(crashConfig("careful")
                        .startMarkInterval(Duration.ofHours(1))
                        .build())
                .build());
        worker.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'") == 2);

        assertThat(startRecordedAtHandler)
                .containsEntry(suspect, true)
                .containsEntry(innocent, false)
                .hasSize(2);
        assertThat(jdbc.queryForObject("SELECT attempts FROM outbox_job_archive WHERE id = ?", Integer.class, suspect))
                .isOne();
    }

    @Test
    void aJobThatCrashesItsWorkerAfterItsStartWasRecordedIsChargedOnItsFirstCrash() {
        Postbox producer = Postbox.builder(dataSource).build();
        long id = enqueueCommitted(
                        producer.outbox(),
                        JobRequest.builder("slow-crash")
                                .payload(Map.of())
                                .maxAttempts(2)
                                .build())
                .jobId();
        Postbox rescuer = Postbox.builder(dataSource)
                .config(crashConfig("rescuer").build())
                .build();
        CountDownLatch hold = new CountDownLatch(1);
        int crashes = 0;
        try {
            for (int worker = 1; worker <= 4 && count("SELECT count(*) FROM outbox_dead_letter") == 0; worker++) {
                SwitchableDataSource db = new SwitchableDataSource(dataSource);
                CountDownLatch crashed = new CountDownLatch(1);
                Postbox engine = track(Postbox.builder(db)
                        .handler("slow-crash", job -> {
                            // runs long enough for the batched start mark, then takes its process down
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> count("SELECT count(*) FROM outbox_job WHERE lease_started") == 1);
                            db.cutOff();
                            crashed.countDown();
                            hold.await(30, TimeUnit.SECONDS);
                        })
                        .config(crashConfig("doomed-" + worker)
                                .startMarkInterval(Duration.ofMillis(50))
                                .build())
                        .build());
                engine.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> crashed.getCount() == 0);
                crashes++;
                rescueAll(rescuer);
            }
        } finally {
            hold.countDown();
        }

        assertThat(crashes).as("charged on every crash: the budget of 2").isEqualTo(2);
        assertThat(jdbc.queryForMap("SELECT attempts, last_error FROM outbox_dead_letter WHERE id = ?", id))
                .containsEntry("attempts", 2)
                .containsEntry("last_error", "lease expired on attempt 2 of 2: worker doomed-2 stopped or hung");
        assertThat(jdbc.queryForList(
                        "SELECT outcome || ':' || attempt FROM outbox_attempt WHERE job_id = ? ORDER BY finished_at",
                        String.class,
                        id))
                .containsExactly("lease_expired:1", "lease_expired:2");
    }

    @Test
    void aJobWhoseLeaseKeepsExpiringBeforeItStartsIsNeverChargedNorDeadLettered() throws Exception {
        // A bystander stranded in the buffers of dying workers again and again (the chaos suite's
        // CI weather strands long-lived jobs twenty times and more) is not at fault, whatever its
        // budget: it stays in line, uncharged, and runs when a worker survives long enough.
        Postbox producer = Postbox.builder(dataSource).build();
        long id = enqueueCommitted(
                        producer.outbox(),
                        JobRequest.builder("never-starts")
                                .payload(Map.of())
                                .maxAttempts(1)
                                .build())
                .jobId();

        for (int expiry = 1; expiry <= 50; expiry++) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                assertThat(claims.claim(c, "default", 10, "crasher-" + expiry, Duration.ofMinutes(1)))
                        .as("claim %s", expiry)
                        .isNotEmpty();
                try (var s = c.createStatement()) {
                    s.executeUpdate("UPDATE outbox_job SET lease_until = now() - interval '1 second'");
                }
                leases.rescue(
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
            }
            assertThat(jdbc.queryForMap("SELECT state, attempts, unstarted_expiries FROM outbox_job WHERE id = ?", id))
                    .containsEntry("state", "pending")
                    .containsEntry("attempts", 0)
                    .containsEntry("unstarted_expiries", expiry);
        }

        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE job_id = ? AND outcome = 'unstarted'", id))
                .isEqualTo(50);
    }

    @Test
    void withTheChargeAtClaimNegativeControlAnUnstartedAttemptIsCharged() throws Exception {
        Postbox producer = Postbox.builder(dataSource).build();
        long id = enqueueCommitted(producer.outbox(), JobRequest.of("work", Map.of()))
                .jobId();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            claims.claim(c, "default", 10, "crasher", Duration.ofMillis(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                LeaseStore.Rescued r = leases.rescue(
                        c,
                        100,
                        new dev.postbox.internal.RetryPolicies(
                                RetryPolicy.custom()
                                        .base(Duration.ofMillis(1))
                                        .cap(Duration.ofMillis(1))
                                        .build(),
                                Map.of()),
                        true,
                        true);
                return r.retried() == 1;
            });
        }
        assertThat(jdbc.queryForMap("SELECT state, attempts, unstarted_expiries FROM outbox_job WHERE id = ?", id))
                .containsEntry("state", "retry")
                .containsEntry("attempts", 1)
                .containsEntry("unstarted_expiries", 0);
        assertThat(jdbc.queryForList("SELECT outcome FROM outbox_attempt WHERE job_id = ?", String.class, id))
                .containsExactly("lease_expired");
    }

    /**
     * The chaos run of 2026-12-02 (txPerSecond 80, load 11): a suspect job's start mark was written,
     * then its transactional handler's transaction waited 5 s for a pooled connection and failed, and
     * the attempt was charged as a retry although its handler never ran. Now such an attempt is
     * released with its attempt refunded; a transaction that fails after the handler ran still counts.
     */
    @Test
    void anAttemptWhoseTransactionCannotBeginIsNotCharged() throws Exception {
        Postbox producer = Postbox.builder(dataSource).build();
        long suspect = suspectJob(producer, "ledger");
        long plain = enqueueCommitted(producer.outbox(), JobRequest.of("ledger", Map.of("n", 2)))
                .jobId();

        // The first two transactions cannot begin (as when the pool has no connection in time).
        AtomicLong refusals = new AtomicLong(2);
        DataSourceTransactionManager flaky = new DataSourceTransactionManager(dataSource) {
            @Override
            protected void doBegin(Object transaction, TransactionDefinition definition) {
                if (refusals.getAndDecrement() > 0) {
                    throw new CannotCreateTransactionException("no connection in time (test)");
                }
                super.doBegin(transaction, definition);
            }
        };
        List<Long> ran = new CopyOnWriteArrayList<>();
        Postbox worker = track(Postbox.builder(dataSource)
                .transactionManager(flaky)
                .handler(HandlerRegistration.of("ledger", job -> ran.add(job.id()))
                        .transactional())
                .config(crashConfig("worker")
                        .pollInterval(Duration.ofMillis(50))
                        .build())
                .build());
        worker.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'") == 2);

        assertThat(refusals.get()).as("both refusals were used").isNegative();
        assertThat(ran).containsExactlyInAnyOrder(suspect, plain);
        for (long id : List.of(suspect, plain)) {
            assertThat(jdbc.queryForObject("SELECT attempts FROM outbox_job_archive WHERE id = ?", Integer.class, id))
                    .as("job %d: one charged attempt, the one that ran", id)
                    .isOne();
        }
        assertThat(count("SELECT count(*) FROM outbox_attempt WHERE outcome IN ('retry', 'lease_expired', 'dead')"))
                .as("no attempt charged for a transaction that never began")
                .isZero();
        assertThat(count("SELECT count(*) FROM outbox_job_archive"
                        + " WHERE last_error LIKE '%transaction could not begin (CannotCreateTransactionException)%'"))
                .as("the release says why, naming only the exception's type")
                .isEqualTo(2);
    }
}
