package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.internal.Transactions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A time limit per attempt: an attempt that runs past it is given up (its thread interrupted, a
 * transactional handler's connection closed), charged and logged {@code timed_out}, then retried or
 * dead-lettered; a handler that ignores the interrupt keeps its thread, counted as stuck, and what it
 * answers late is kept out. Limits are short (hundreds of milliseconds) and every assertion is on an
 * outcome, never on how long something took.
 */
class TimeLimitTest extends DatabaseTest {

    private static final Duration LIMIT = Duration.ofMillis(300);
    private static final RetryPolicy FAST_RETRY = RetryPolicy.custom()
            .base(Duration.ofMillis(1))
            .cap(Duration.ofMillis(1))
            .maxAttempts(3)
            .build();

    /** Lets the handlers that ignore their interrupt go (at the end of each test at the latest). */
    private volatile CountDownLatch release = new CountDownLatch(1);

    @BeforeAll
    void businessTable() {
        jdbc.execute("CREATE TABLE business_effect (job_id bigint PRIMARY KEY, attempt integer NOT NULL)");
    }

    @BeforeEach
    void holdHandlers() {
        release = new CountDownLatch(1);
    }

    @AfterEach
    void releaseHandlers() {
        release.countDown();
        jdbc.execute("TRUNCATE business_effect");
    }

    private long enqueue(Postbox postbox, JobRequest request) {
        return enqueueCommitted(postbox.outbox(), request).jobId();
    }

    @Override
    protected PostboxConfig.Builder fastConfig() {
        return super.fastConfig().attemptLog(AttemptLogLevel.ALL);
    }

    private List<String> attemptLog(long id) {
        return jdbc.queryForList(
                "SELECT attempt || ':' || outcome FROM outbox_attempt WHERE job_id = ? ORDER BY attempt, finished_at",
                String.class,
                id);
    }

    /** Waits for the latch as a handler that ignores interrupts does: it keeps waiting. */
    private static void ignoringInterrupts(CountDownLatch latch, AtomicBoolean interrupted) {
        while (latch.getCount() > 0) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        }
    }

    @Test
    void aHandlerThatHonoursTheInterruptIsGivenUpChargedAndRetried() {
        AtomicBoolean interrupted = new AtomicBoolean();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("hang", job -> {
                            if (job.attempt() == 1) {
                                try {
                                    new CountDownLatch(1).await(); // never counted down
                                } catch (InterruptedException e) {
                                    interrupted.set(true);
                                    throw e;
                                }
                            }
                        })
                        .timeLimit(LIMIT)
                        .retryPolicy(FAST_RETRY))
                .config(fastConfig().concurrency(1).build())
                .build());
        postbox.start();
        long id = enqueue(postbox, JobRequest.of("hang", Map.of()));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id) == 1);
        assertThat(interrupted).isTrue();
        assertThat(attemptLog(id)).containsExactly("1:timed_out", "2:done");
        assertThat(jdbc.queryForObject(
                        "SELECT (detail->>'timeLimitMs')::int FROM outbox_attempt WHERE job_id = ? AND attempt = 1",
                        Integer.class,
                        id))
                .isEqualTo(300);
        assertThat(jdbc.queryForObject(
                        "SELECT state || ' after ' || attempts FROM outbox_job_archive WHERE id = ?", String.class, id))
                .isEqualTo("done after 2");
        await().atMost(Duration.ofSeconds(10)).until(() -> postbox.stuckThreads() == 0);
        assertThat(postbox.healthy()).isTrue();
    }

    @Test
    void aTimedOutAttemptOnTheLastOfTheBudgetDeadLettersTheJob() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("hang", job -> new CountDownLatch(1).await())
                        .timeLimit(LIMIT)
                        .retryPolicy(FAST_RETRY))
                .config(fastConfig().concurrency(1).build())
                .build());
        postbox.start();
        long id = enqueue(
                postbox,
                JobRequest.builder("hang").payload(Map.of()).maxAttempts(2).build());

        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_dead_letter WHERE id = ?", id) == 1);
        assertThat(attemptLog(id)).containsExactly("1:timed_out", "2:timed_out");
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_dead_letter WHERE id = ?", String.class, id))
                .contains("attempt 2 ran past its time limit of PT0.3S");
        assertThat(count("SELECT attempts FROM outbox_dead_letter WHERE id = ?", id))
                .as("the budget of 2 spent")
                .isEqualTo(2);
    }

    @Test
    void aHandlerThatIgnoresTheInterruptIsStuckItsSlotGivenBackAndItsLateAnswerKeptOut() {
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch firstReturned = new CountDownLatch(1);
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("stubborn", job -> {
                            if (job.attempt() == 1) {
                                ignoringInterrupts(release, interrupted);
                                firstReturned.countDown();
                            }
                        })
                        .timeLimit(LIMIT)
                        .retryPolicy(FAST_RETRY))
                // one worker: the second attempt runs only because the stuck thread's slot is given back
                .config(fastConfig().concurrency(1).stuckThreadLimit(1).build())
                .build());
        postbox.start();
        long id = enqueue(postbox, JobRequest.of("stubborn", Map.of()));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id) == 1);
        assertThat(interrupted).isTrue();
        assertThat(postbox.stuckThreads()).isEqualTo(1);
        assertThat(postbox.healthy()).as("one stuck thread is tolerated").isTrue();
        assertThat(attemptLog(id)).containsExactly("1:timed_out", "2:done");

        release.countDown(); // the stuck handler answers "done", far too late
        await().atMost(Duration.ofSeconds(10)).until(() -> firstReturned.getCount() == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> postbox.stuckThreads() == 0);
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(5))
                .until(() -> attemptLog(id).equals(List.of("1:timed_out", "2:done")));
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id))
                .isEqualTo(1);

        // the engine still runs jobs with its one worker (the replacement; the stuck one ended)
        long next = enqueue(
                postbox, JobRequest.builder("stubborn").payload(Map.of()).build());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", next) == 1);
    }

    @Test
    void beyondTheStuckThreadLimitTheWorkerIsNotReplacedAndReportsItselfUnhealthy() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("stubborn", job -> {
                            if (job.attempt() == 1) {
                                ignoringInterrupts(release, new AtomicBoolean());
                            }
                        })
                        .timeLimit(LIMIT)
                        .retryPolicy(FAST_RETRY))
                .config(fastConfig().concurrency(1).stuckThreadLimit(0).build())
                .build());
        postbox.start();
        long id = enqueue(postbox, JobRequest.of("stubborn", Map.of()));

        await().atMost(Duration.ofSeconds(30)).until(() -> postbox.stuckThreads() == 1);
        assertThat(postbox.healthy()).isFalse();
        // given up and retried in the database, but no thread is left to run the retry
        await().atMost(Duration.ofSeconds(10)).until(() -> attemptLog(id).equals(List.of("1:timed_out")));
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id) == 0);

        release.countDown(); // the stuck thread comes back and, not replaced, runs the retry
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id) == 1);
        assertThat(postbox.stuckThreads()).isZero();
        assertThat(postbox.healthy()).isTrue();
    }

    @Test
    void aTransactionalHandlerIsRolledBackAndItsLocksReleasedWhileItStillHangs() {
        AtomicBoolean interrupted = new AtomicBoolean();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("tx-hang", job -> {
                            jdbc.update(
                                    "INSERT INTO business_effect (job_id, attempt) VALUES (?, ?)",
                                    job.id(),
                                    job.attempt());
                            if (job.attempt() == 1) {
                                ignoringInterrupts(release, interrupted);
                            }
                        })
                        .transactional()
                        .timeLimit(LIMIT)
                        .retryPolicy(FAST_RETRY))
                .config(fastConfig().concurrency(1).stuckThreadLimit(0).build())
                .build());
        postbox.start();
        long id = enqueue(postbox, JobRequest.of("tx-hang", Map.of()));

        await().atMost(Duration.ofSeconds(30)).until(() -> postbox.stuckThreads() == 1);
        // The hung attempt's transaction is gone although its handler still waits: its row lock on
        // the key it inserted no longer holds up another transaction's insert of the same key.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            try (Connection c = dataSource.getConnection()) {
                return Transactions.rolledBack(c, tx -> {
                    try (Statement s = tx.createStatement()) {
                        s.execute("SET LOCAL lock_timeout = '200ms'");
                        return s.executeUpdate("INSERT INTO business_effect VALUES (" + id + ", 0)") == 1;
                    }
                });
            }
        });
        assertThat(count("SELECT count(*) FROM business_effect")).isZero();

        release.countDown(); // the hung handler comes back and answers done: too late, rolled back
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE id = ?", id) == 1);
        assertThat(interrupted).isTrue();
        assertThat(jdbc.queryForList("SELECT attempt FROM business_effect WHERE job_id = ?", Integer.class, id))
                .as("only the second attempt's writes committed")
                .containsExactly(2);
        assertThat(attemptLog(id)).containsExactly("1:timed_out", "2:done");
    }

    @Test
    void theJobsLimitOverridesItsKindsWhichOverridesTheEngines() {
        Map<String, Duration> seen = new ConcurrentHashMap<>();
        JobHandler record = job -> seen.put(
                job.payload(Map.class).get("name").toString(), job.timeLimit().orElseThrow());
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("engine-limit", record)
                .handler(HandlerRegistration.of("kind-limit", record).timeLimit(Duration.ofSeconds(22)))
                .config(fastConfig().attemptTimeLimit(Duration.ofSeconds(11)).build())
                .build());
        enqueue(postbox, JobRequest.of("engine-limit", Map.of("name", "engine")));
        enqueue(postbox, JobRequest.of("kind-limit", Map.of("name", "kind")));
        enqueue(
                postbox,
                JobRequest.builder("kind-limit")
                        .payload(Map.of("name", "job"))
                        .timeLimit(Duration.ofSeconds(33))
                        .build());
        enqueue(
                postbox,
                JobRequest.builder("engine-limit")
                        .payload(Map.of("name", "job-over-engine"))
                        .timeLimit(Duration.ofMillis(4500))
                        .build());

        postbox.runDueJobs();

        assertThat(seen)
                .containsOnly(
                        Map.entry("engine", Duration.ofSeconds(11)),
                        Map.entry("kind", Duration.ofSeconds(22)),
                        Map.entry("job", Duration.ofSeconds(33)),
                        Map.entry("job-over-engine", Duration.ofMillis(4500)));
    }

    @Test
    void aJobWithoutALimitAnywhereHasNone() {
        Map<String, Boolean> limited = new ConcurrentHashMap<>();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("plain", job -> limited.put("plain", job.timeLimit().isPresent()))
                .config(fastConfig().build())
                .build());
        long id = enqueue(postbox, JobRequest.of("plain", Map.of()));
        assertThat(jdbc.queryForObject("SELECT time_limit_ms FROM outbox_job WHERE id = ?", Integer.class, id))
                .as("an unset limit is not stored")
                .isNull();

        postbox.runDueJobs();

        assertThat(limited).containsEntry("plain", false);
    }

    @Test
    void aTimeLimitOutOfRangeIsRefusedNamingIt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> JobRequest.builder("k").timeLimit(Duration.ofDays(25)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeLimit must be between 1 ms and 24 days");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> HandlerRegistration.of("k", job -> {}).timeLimit(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeLimit");
    }
}
