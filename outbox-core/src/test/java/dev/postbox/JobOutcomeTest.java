package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Issue 16: an attempt's outcome is a value a handler can return; the engine makes the one retry decision. */
class JobOutcomeTest extends DatabaseTest {

    private static final RetryPolicy SLOW = RetryPolicy.custom()
            .base(Duration.ofHours(1))
            .cap(Duration.ofHours(2))
            .maxAttempts(3)
            .build();

    private Postbox engine(OutcomeHandler handler) {
        return track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("work", handler).retryPolicy(SLOW))
                .build());
    }

    private long enqueue(Postbox postbox) {
        return enqueueCommitted(postbox.outbox(), JobRequest.of("work", Map.of()))
                .jobId();
    }

    /** Seconds from the database's now to the job's run_at. */
    private double waitSeconds(long id) {
        Double s = jdbc.queryForObject(
                "SELECT extract(epoch FROM run_at - now()) FROM outbox_job WHERE id = ?", Double.class, id);
        return s == null ? Double.NaN : s;
    }

    /**
     * The job waits a delay of {@code min..max} seconds given at or after {@code sinceNanos}: less
     * the time measured since then (a busy machine may take seconds), plus half a second of clock.
     */
    private void assertWaits(long id, double min, double max, long sinceNanos) {
        double wait = waitSeconds(id);
        double elapsed = (System.nanoTime() - sinceNanos) / 1e9;
        assertThat(wait)
                .as("seconds job %d waits, %.3f s after its outcome's run", id, elapsed)
                .isBetween(min - elapsed, max + 0.5);
    }

    @Test
    void aReturnedRetryWithADelayWaitsThatDelayAndLeavesItsDetailsInTheAttemptLog() {
        Postbox postbox = engine(job -> JobOutcome.retry("remote busy")
                .after(Duration.ofSeconds(30))
                .withDetails(new JobOutcome.Details(503, "{\"server\":\"b\"}")));
        long id = enqueue(postbox);

        long ran = System.nanoTime();
        assertThat(postbox.runDueJobs()).isOne();

        assertThat(jdbc.queryForMap("SELECT state, attempts, last_error FROM outbox_job WHERE id = ?", id))
                .containsEntry("state", "retry")
                .containsEntry("attempts", 1)
                .containsEntry("last_error", "remote busy");
        assertWaits(id, 30, 30, ran);
        assertThat(jdbc.queryForMap(
                        "SELECT outcome, status_code, detail ->> 'server' AS server FROM outbox_attempt WHERE job_id = ?",
                        id))
                .containsEntry("outcome", "retry")
                .containsEntry("status_code", 503)
                .containsEntry("server", "b");
    }

    @Test
    void aReturnedRetryWithoutADelayTakesTheKindsBackoffAndOneWithItsOwnPolicyTakesThatPolicysCap() {
        AtomicReference<JobOutcome> answer = new AtomicReference<>(JobOutcome.retry("plain"));
        Postbox postbox = engine(job -> answer.get());
        List<Long> plain = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            plain.add(enqueue(postbox));
        }
        long ran = System.nanoTime();
        postbox.runDueJobs();
        // The kind's policy: attempt 1 waits up to its base of an hour (the engine's default: up to 1 s).
        // Five full-jitter draws all under 5 s would have a chance of (5/3600)^5.
        plain.forEach(id -> assertWaits(id, 0, 3600, ran));
        assertThat(plain.stream().mapToDouble(this::waitSeconds).max().orElseThrow())
                .isGreaterThan(5.0);
        jdbc.update("DELETE FROM outbox_job");

        RetryPolicy tight = RetryPolicy.custom()
                .base(Duration.ofMillis(100))
                .cap(Duration.ofSeconds(2))
                .build();
        answer.set(JobOutcome.retry("own policy").after(Duration.ofHours(1)).withPolicy(tight));
        long own = enqueue(postbox);
        long ranOwn = System.nanoTime();
        postbox.runDueJobs();
        // the chosen hour is clamped to the outcome's policy's cap, not the kind's
        assertWaits(own, 2, 2, ranOwn);
    }

    @Test
    void aReturnedRetryOnTheLastAttemptIsDeadLettered() {
        Postbox postbox = engine(job -> JobOutcome.retry("still busy"));
        long id = enqueue(postbox);
        for (int attempt = 1; attempt <= 3; attempt++) {
            jdbc.update("UPDATE outbox_job SET run_at = now()");
            assertThat(postbox.runDueJobs()).as("attempt %s", attempt).isOne();
        }
        assertThat(jdbc.queryForMap("SELECT attempts, last_error FROM outbox_dead_letter WHERE id = ?", id))
                .containsEntry("attempts", 3)
                .containsEntry("last_error", "still busy");
    }

    @Test
    void aReturnedDeadIsDeadLetteredAtOnceWithItsCauseAndCanBeReplayedByIt() {
        Postbox postbox = engine(job -> job.payload(Map.class).containsKey("gone")
                ? JobOutcome.dead("the receiver is gone").withCause("test.gone")
                : JobOutcome.dead("bad request"));
        long gone = enqueueCommitted(postbox.outbox(), JobRequest.of("work", Map.of("gone", true)))
                .jobId();
        long bad = enqueue(postbox);
        assertThat(postbox.runDueJobs()).isEqualTo(2);

        assertThat(jdbc.queryForList(
                        "SELECT id || ':' || attempts || ':' || coalesce(cause, '-') FROM"
                                + " outbox_dead_letter ORDER BY id",
                        String.class))
                .containsExactly(gone + ":1:test.gone", bad + ":1:-");
        assertThat(postbox.admin().deadLetterCount(DeadLetterFilter.all().cause("test.gone")))
                .isOne();

        assertThat(postbox.admin().replay(DeadLetterFilter.all().cause("test.gone")))
                .isOne();
        assertThat(jdbc.queryForList("SELECT id FROM outbox_job", Long.class)).containsExactly(gone);
        assertThat(jdbc.queryForList("SELECT id FROM outbox_dead_letter", Long.class))
                .containsExactly(bad);
    }

    @Test
    void aReturnedSnoozeRunsLaterWithoutSpendingAnAttempt() {
        Postbox postbox = engine(job -> JobOutcome.snooze(Duration.ofMinutes(5), "waiting for a permit"));
        long id = enqueue(postbox);
        long ran = System.nanoTime();
        postbox.runDueJobs();
        assertThat(jdbc.queryForMap("SELECT state, attempts, last_error FROM outbox_job WHERE id = ?", id))
                .containsEntry("state", "pending")
                .containsEntry("attempts", 0)
                .as("the reason is kept as the job's last error while it waits")
                .containsEntry("last_error", "waiting for a permit");
        assertWaits(id, 300, 300, ran);
    }

    @Test
    void aTransactionalHandlerThatReturnsAFailureHasItsWritesRolledBack() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS outcome_effect (job_id bigint)");
        jdbc.execute("TRUNCATE outcome_effect");
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("work", (OutcomeHandler) job -> {
                            new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                                    .update("INSERT INTO outcome_effect VALUES (?)", job.id());
                            return job.attempt() == 1 ? JobOutcome.retry("not yet") : JobOutcome.done();
                        })
                        .transactional()
                        .retryPolicy(SLOW))
                .build());
        long id = enqueue(postbox);

        postbox.runDueJobs();
        assertThat(count("SELECT count(*) FROM outcome_effect"))
                .as("the retried attempt's write")
                .isZero();
        assertThat(count("SELECT count(*) FROM outbox_job WHERE id = ? AND state = 'retry'", id))
                .isOne();

        jdbc.update("UPDATE outbox_job SET run_at = now()");
        postbox.runDueJobs();
        assertThat(count("SELECT count(*) FROM outcome_effect WHERE job_id = ?", id))
                .as("the completed attempt's write")
                .isOne();
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE id = ? AND state = 'done'", id))
                .isOne();
    }

    @Test
    void aPlainHandlersExceptionsAreReadAsTheSameOutcomes() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("work", job -> {
                            throw new RetryJobAfter("later", Duration.ofSeconds(40));
                        })
                        .retryPolicy(SLOW))
                .handler("fatal", job -> {
                    throw new PermanentJobFailure("never");
                })
                .build());
        long later = enqueue(postbox);
        long fatal = enqueueCommitted(postbox.outbox(), JobRequest.of("fatal", Map.of()))
                .jobId();
        long ran = System.nanoTime();
        postbox.runDueJobs();

        assertWaits(later, 40, 40, ran);
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_job WHERE id = ?", String.class, later))
                .isEqualTo(RetryJobAfter.class.getName() + ": later");
        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_dead_letter WHERE id = ?", String.class, fatal))
                .isEqualTo(PermanentJobFailure.class.getName() + ": never");
    }

    @Test
    void anOutcomeHandlerCalledAsAPlainHandlerThrowsWhatAPlainHandlerWould() throws Exception {
        OutcomeHandler retry = job -> JobOutcome.retry("busy").after(Duration.ofSeconds(3));
        OutcomeHandler dead = job -> JobOutcome.dead("gone");
        OutcomeHandler snooze = job -> JobOutcome.snooze(Duration.ofSeconds(1), "wait");
        OutcomeHandler done = job -> JobOutcome.done();
        Job job =
                Job.builder(1, "work", "{}", JsonCodec.jackson()).attempt(1, 3).build();

        assertThatThrownBy(() -> retry.handle(job))
                .isInstanceOfSatisfying(
                        RetryJobAfter.class, e -> assertThat(e.delay()).hasSeconds(3));
        assertThatThrownBy(() -> dead.handle(job))
                .isInstanceOf(PermanentJobFailure.class)
                .hasMessage("gone");
        assertThatThrownBy(() -> snooze.handle(job)).isInstanceOf(SnoozeJob.class);
        done.handle(job); // returns
    }

    @Test
    void aModulesHandlersAreRegisteredAndItIsInstalledWithTheBuiltEnginesOutboxAndAdmin() {
        AtomicReference<PostboxModule.Context> installed = new AtomicReference<>();
        PostboxModule module = new PostboxModule() {
            @Override
            public List<HandlerRegistration> handlers() {
                return List.of(HandlerRegistration.of("module-kind", job -> {}));
            }

            @Override
            public void install(Context context) {
                installed.set(context);
            }
        };
        Postbox postbox = track(Postbox.builder(dataSource).module(module).build());

        assertThat(postbox.handlerKinds()).containsExactly("module-kind");
        assertThat(installed.get().outbox()).isSameAs(postbox.outbox());
        assertThat(installed.get().admin()).isSameAs(postbox.admin());
        assertThat(installed.get().config()).isSameAs(postbox.config());
        assertThatThrownBy(() -> Postbox.builder(dataSource)
                        .handler("module-kind", job -> {})
                        .module(module))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("module-kind");
    }

    @Test
    void outcomeValuesRefuseBadArgumentsNamingThem() {
        assertThatThrownBy(() -> JobOutcome.retry("x").after(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay");
        assertThatThrownBy(() -> JobOutcome.dead("x").withCause(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cause");
        assertThatThrownBy(() -> JobOutcome.snooze(Duration.ofSeconds(1), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
    }
}
