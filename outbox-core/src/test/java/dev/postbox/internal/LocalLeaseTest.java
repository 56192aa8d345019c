package dev.postbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.AttemptLogLevel;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.JsonCodec;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.PostboxListener;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What this process knows about its leases: the lease end it estimates locally (claim time plus the
 * visibility timeout, moved by each heartbeat that extended the claim), the start margin a claim
 * needs before its handler may run, and what happens to claims the heartbeat finds lost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalLeaseTest {

    private static final Duration VISIBILITY = Duration.ofSeconds(30);

    private final PostboxConfig config = PostboxConfig.custom()
            .workerId("local")
            .visibilityTimeout(VISIBILITY)
            .heartbeatInterval(Duration.ofSeconds(10))
            .attemptLog(AttemptLogLevel.ALL)
            .build();
    private final JobStore store = new JobStore();
    private final ClaimStore claims = new ClaimStore(JsonCodec.jackson());
    private final LeaseStore leases = new LeaseStore();
    private final ConcurrentLinkedQueue<Long> ran = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
    private final PostboxListener listener = new PostboxListener() {
        @Override
        public void staleToken(long jobId, String operation) {
            stale.add(jobId + ":" + operation);
        }
    };

    private HikariDataSource dataSource;
    private JdbcTemplate jdbc;
    private InFlight inFlight;
    private CompletionBatcher completions;
    private JobRunner runner;

    @BeforeAll
    void createDatabase() {
        dataSource = TestDatabase.create();
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterAll
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    @AfterEach
    void clean() {
        ran.clear();
        stale.clear();
        jdbc.execute("TRUNCATE outbox_job, outbox_job_archive, outbox_attempt");
    }

    private void newRunner() {
        inFlight = new InFlight();
        completions = new CompletionBatcher(
                dataSource, store, inFlight, listener, 100, Duration.ofMillis(1), Duration.ofMillis(100), true);
        runner = new JobRunner(
                Map.of("work", HandlerRegistration.of("work", job -> ran.add(job.id()))),
                dataSource,
                new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
                store,
                leases,
                completions,
                inFlight,
                listener,
                dev.postbox.PostboxInstrumentation.NO_OP,
                config,
                new RetryPolicies(config.retryPolicy(), Map.of()),
                dev.postbox.JsonCodec.jackson());
    }

    private List<Long> enqueue(int n) {
        Postbox producer = Postbox.builder(dataSource).build();
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        return tx.execute(s -> {
            List<Long> ids = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                ids.add(producer.outbox()
                        .enqueue(JobRequest.of("work", Map.of("i", i)))
                        .jobId());
            }
            return ids;
        });
    }

    private List<ClaimedJob> claim(String worker) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return claims.claim(c, "default", 100, worker, VISIBILITY);
        }
    }

    /** The same claim, as if this process had last heard of its lease {@code left} before it ends. */
    private static ClaimedJob withLeaseLeft(ClaimedJob claimed, Duration left) {
        return new ClaimedJob(
                claimed.job(), claimed.token(), false, claimed.suspect(), System.nanoTime() + left.toNanos());
    }

    @Test
    void theStartMarginIsHalfTheSlackBetweenHeartbeatAndLease() {
        assertThat(JobRunner.startMargin(config)).isEqualTo(Duration.ofSeconds(10));
        assertThat(JobRunner.startMargin(PostboxConfig.ofDefaults())).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aClaimIsStartedOnlyWithAtLeastTheStartMarginOfItsLeaseLeft() throws Exception {
        newRunner();
        List<Long> ids = enqueue(3);
        long claiming = System.nanoTime();
        List<ClaimedJob> claimed = claim("local");
        assertThat(claimed).extracting(ClaimedJob::id).containsExactlyInAnyOrderElementsOf(ids);
        ClaimedJob fresh = claimed.get(0);
        long now = System.nanoTime();
        assertThat(fresh.leaseLeftNanos(now))
                .as("a fresh claim knows (at most) the whole visibility timeout is left, less the time since")
                .isBetween(VISIBILITY.toNanos() - (now - claiming), VISIBILITY.toNanos());
        ClaimedJob nearItsEnd = withLeaseLeft(claimed.get(1), Duration.ofSeconds(5)); // margin: 10 s
        ClaimedJob lapsed = withLeaseLeft(claimed.get(2), Duration.ofMillis(-1));
        inFlight.add(List.of(fresh, nearItsEnd, lapsed));

        runner.run(fresh);
        runner.run(nearItsEnd);
        runner.run(lapsed);
        completions.flushNow();

        assertThat(ran).as("only the fresh claim ran").containsExactly(fresh.id());
        assertThat(inFlight.size()).as("none of the three is held any more").isZero();
        assertThat(jdbc.queryForObject("SELECT state FROM outbox_job_archive WHERE id = ?", String.class, fresh.id()))
                .isEqualTo("done");
        assertThat(jdbc.queryForMap(
                        "SELECT state, attempts, lease_token, lease_started FROM outbox_job WHERE id = ?",
                        nearItsEnd.id()))
                .as("near its end: released at once, its attempt refunded")
                .containsEntry("state", "pending")
                .containsEntry("attempts", 0)
                .containsEntry("lease_token", null)
                .containsEntry("lease_started", false);
        assertThat(jdbc.queryForList(
                        "SELECT outcome || ': ' || error FROM outbox_attempt WHERE job_id = ?",
                        String.class,
                        nearItsEnd.id()))
                .containsExactly("released: lease near its end before the attempt started: released, not charged");
        assertThat(jdbc.queryForMap(
                        "SELECT state, attempts, lease_token, lease_started FROM outbox_job WHERE id = ?", lapsed.id()))
                .as("maybe lapsed: not touched, left for the rescuer (which will refund it)")
                .containsEntry("state", "running")
                .containsEntry("attempts", 1)
                .containsEntry("lease_token", lapsed.token())
                .containsEntry("lease_started", false);
        assertThat(jdbc.queryForList("SELECT outcome FROM outbox_attempt WHERE job_id = ?", String.class, lapsed.id()))
                .isEmpty();
    }

    @Test
    void theHeartbeatMovesTheLocalLeaseEndAndDropsUnstartedClaimsItFindsLost() throws Exception {
        newRunner();
        enqueue(3);
        List<ClaimedJob> claimed = claim("local");
        ClaimedJob kept = withLeaseLeft(claimed.get(0), Duration.ofSeconds(1));
        ClaimedJob lostUnstarted = claimed.get(1);
        ClaimedJob lostRunning = claimed.get(2);
        lostRunning.started(System.nanoTime());
        inFlight.add(List.of(kept, lostUnstarted, lostRunning));
        // Two of the leases lapsed and moved on to another worker while this process stalled.
        jdbc.update(
                "UPDATE outbox_job SET lease_token = nextval('outbox_lease_token_seq'), lease_owner = 'other'"
                        + " WHERE id IN (?, ?)",
                lostUnstarted.id(),
                lostRunning.id());

        new Heartbeat(dataSource, leases, inFlight, listener, config).run();

        assertThat(kept.leaseLeftNanos(System.nanoTime()))
                .as("extended: about a whole visibility timeout left again")
                .isGreaterThan(VISIBILITY.minusSeconds(5).toNanos());
        assertThat(inFlight.holds(kept)).isTrue();
        assertThat(inFlight.holds(lostUnstarted))
                .as("an unstarted claim whose lease moved on is dropped without a write")
                .isFalse();
        assertThat(inFlight.holds(lostRunning))
                .as("a running one stays until its (fenced) outcome write")
                .isTrue();
        assertThat(stale).containsExactly(lostUnstarted.id() + ":heartbeat");
        assertThat(jdbc.queryForObject(
                        "SELECT count(*) FROM outbox_job WHERE lease_owner = 'other' AND state = 'running'",
                        Long.class))
                .as("the new owner's claims are untouched")
                .isEqualTo(2);

        runner.run(lostUnstarted);
        assertThat(ran).as("a dropped claim is not started").isEmpty();
    }

    @Test
    void batchedStartMarksRecordRunningAttemptsOnlyAndWhenTheyBegan() throws Exception {
        newRunner();
        enqueue(4);
        List<ClaimedJob> claimed = claim("local");
        ClaimedJob running = claimed.get(0);
        ClaimedJob finished = claimed.get(1);
        ClaimedJob waiting = claimed.get(2);
        ClaimedJob waitingForItsConnection = claimed.get(3);
        running.started(System.nanoTime() - Duration.ofSeconds(3).toNanos());
        running.enteringHandler();
        finished.started(System.nanoTime());
        finished.enteringHandler();
        finished.handlerDone();
        // Begun, but its handler not entered yet (waiting for a pooled connection for its
        // transaction): if this process died now, the handler would never have run.
        waitingForItsConnection.started(System.nanoTime());
        inFlight.add(claimed);

        new StartMarks(dataSource, leases, inFlight).run();

        assertThat(jdbc.queryForList("SELECT id FROM outbox_job WHERE lease_started", Long.class))
                .containsExactly(running.id());
        assertThat(jdbc.queryForObject(
                        "SELECT now() - started_at BETWEEN interval '2.5 seconds' AND interval '4 seconds'"
                                + " FROM outbox_job WHERE id = ?",
                        Boolean.class,
                        running.id()))
                .as("started_at is when the handler began, not when the mark was written")
                .isTrue();
        assertThat(running.awaitsStartMark()).isFalse();
        assertThat(waiting.awaitsStartMark()).isFalse();
        assertThat(waitingForItsConnection.awaitsStartMark()).isFalse();

        jdbc.update("UPDATE outbox_job SET lease_started = false");
        new StartMarks(dataSource, leases, inFlight).run();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_job WHERE lease_started", Long.class))
                .as("a mark is written once")
                .isZero();
    }
}
