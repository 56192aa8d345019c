package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class DeadLetterTest extends DatabaseTest {

    private final AtomicBoolean healthy = new AtomicBoolean();

    private Postbox engine() {
        return track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("flaky", job -> {
                            if (!healthy.get()) {
                                throw new IllegalStateException("downstream unavailable");
                            }
                        })
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofMillis(1))
                                .cap(Duration.ofMillis(1))
                                .maxAttempts(3)
                                .build()))
                .build());
    }

    /** Runs due jobs until the default queue's jobs leave the live table (retries are 1 ms apart). */
    private void runUntilNotLive(Postbox postbox) {
        for (int i = 0; i < 100 && count("SELECT count(*) FROM outbox_job WHERE queue = 'default'") > 0; i++) {
            postbox.runDueJobs();
            jdbc.update("UPDATE outbox_job SET run_at = now() WHERE state = 'retry'");
        }
    }

    @Test
    void afterMaxAttemptsTheJobIsDeadThenReplayRunsItAgain() {
        Postbox postbox = engine();
        long id = enqueueCommitted(postbox.outbox(), JobRequest.of("flaky", Map.of("x", 1)))
                .jobId();

        runUntilNotLive(postbox);

        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE id = ? AND attempts = 3", id))
                .isOne();
        JobDetails details = postbox.admin().job(id).orElseThrow();
        assertThat(details.state()).isEqualTo("dead");
        assertThat(details.lastError()).contains("downstream unavailable");
        assertThat(details.history()).extracting(JobDetails.Attempt::outcome).containsExactly("retry", "retry", "dead");
        assertThat(postbox.admin().deadLetters(DeadLetterFilter.all().kind("flaky"), 10))
                .extracting(DeadLetter::id)
                .containsExactly(id);

        healthy.set(true);
        assertThat(postbox.admin().replay(id)).isTrue();
        assertThat(postbox.runDueJobs()).isOne();

        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isZero();
        assertThat(postbox.admin().job(id).orElseThrow().state()).isEqualTo("done");
    }

    @Test
    void replayByFilterAndPurgeTouchOnlyMatchingDeadLetters() {
        Postbox postbox = engine();
        for (int i = 0; i < 3; i++) {
            enqueueCommitted(postbox.outbox(), JobRequest.of("flaky", Map.of("i", i)));
        }
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("flaky").queue("other").payload(Map.of()).build());
        runUntilNotLive(postbox);
        assertThat(postbox.admin().deadLetterCount()).isEqualTo(3);

        assertThat(postbox.admin()
                        .replay(DeadLetterFilter.all().queue("default").errorContains("UNAVAILABLE")))
                .isEqualTo(3);
        assertThat(
                        count(
                                "SELECT count(*) FROM outbox_job WHERE queue = 'default' AND state = 'pending' AND attempts = 0"))
                .isEqualTo(3);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE queue = 'other'"))
                .isOne();

        runUntilNotLive(postbox);
        assertThat(postbox.admin().purge(DeadLetterFilter.all().kind("flaky").deadBetween(null, null)))
                .isEqualTo(3);
        assertThat(postbox.admin().deadLetterCount()).isZero();
    }

    @Test
    void deadLettersThatFailedTheSameWayShareAFingerprintAndReplayByItOrByIds() {
        String insert = "INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts,"
                + " max_attempts, last_error, created_at) VALUES (?, 'default', 'sync', '{}', 0, 3, 3, ?, now())";
        jdbc.update(insert, 1L, "order 81724 not found\n\tat Erp.find(Erp.java:12)");
        jdbc.update(insert, 2L, "order 93311 not found");
        jdbc.update(insert, 3L, "HTTP 503 from erp for 2f1e6a0c-1111-4b7e-9c3d-0a1b2c3d4e5f");
        jdbc.update(insert, 4L, "HTTP 500 from erp for 7a2e6a0c-2222-4b7e-9c3d-0a1b2c3d4e5f");
        jdbc.update(insert, 5L, "HTTP 503 from erp for 9b3e6a0c-3333-4b7e-9c3d-0a1b2c3d4e5f");

        // Every number is masked (schema V13); the status stays apart in its own column, so 500 and 503 are two
        // groups of one fingerprint
        assertThat(jdbc.queryForList(
                        "SELECT error_fingerprint || ' / ' || coalesce(error_status::text, '-') FROM outbox_dead_letter"
                                + " ORDER BY id",
                        String.class))
                .containsExactly(
                        "order # not found / -",
                        "order # not found / -",
                        "HTTP # from erp for # / 503",
                        "HTTP # from erp for # / 500",
                        "HTTP # from erp for # / 503");

        PostboxAdmin admin = engine().admin();
        assertThat(admin.deadLetterCount(DeadLetterFilter.all().errorFingerprint("order # not found")))
                .isEqualTo(2);
        assertThat(admin.replay(DeadLetterFilter.all()
                        .kind("sync")
                        .errorFingerprint("HTTP # from erp for #")
                        .errorStatus(503)))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE id IN (3, 5) AND state = 'pending'"))
                .isEqualTo(2);
        assertThat(admin.purge(DeadLetterFilter.all().ids(java.util.List.of(1L, 4L, 99L))))
                .isEqualTo(2);
        assertThat(jdbc.queryForList("SELECT id FROM outbox_dead_letter", Long.class))
                .containsExactly(2L);
        assertThat(admin.purge(DeadLetterFilter.all().ids(java.util.List.of()))).isZero();
        assertThat(admin.deadLetterCount()).isOne();
    }

    @Test
    void permanentFailureDeadLettersAtOnce() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("bad-input", job -> {
                    throw new PermanentJobFailure("order 7 does not exist");
                })
                .build());
        long id = enqueueCommitted(postbox.outbox(), JobRequest.of("bad-input", Map.of()))
                .jobId();

        postbox.runDueJobs();

        assertThat(jdbc.queryForObject("SELECT last_error FROM outbox_dead_letter WHERE id = ?", String.class, id))
                .contains("order 7 does not exist");
        assertThat(count("SELECT attempts FROM outbox_dead_letter WHERE id = ?", id))
                .isOne();
    }
}
