package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Issue 12 items 3 and 4: NUL characters and over-long keys and names get clear errors, nothing is lost. */
class BadInputTest extends DatabaseTest {

    private Postbox engine(JobHandler handler) {
        return track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("work", handler)
                        .retryPolicy(RetryPolicy.custom()
                                .base(Duration.ofMillis(1))
                                .cap(Duration.ofMillis(1))
                                .maxAttempts(2)
                                .build()))
                .build());
    }

    private void refusedAndNothingWritten(Postbox postbox, JobRequest request, String... messageParts) {
        assertThatThrownBy(() -> enqueueCommitted(postbox.outbox(), request))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll(messageParts);
        assertThat(count("SELECT count(*) FROM outbox_job")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_idempotency_key")).isZero();
    }

    @Test
    void aNulInThePayloadIsRefusedAtEnqueueWithAClearError() {
        Postbox postbox = engine(job -> {});
        refusedAndNothingWritten(
                postbox,
                JobRequest.ofJson("work", "{\"a\":\"x\\u0000y\"}"),
                "job kind 'work'",
                "U+0000 (NUL)",
                "Base64");
        refusedAndNothingWritten(postbox, JobRequest.of("work", Map.of("a", "x\0y")), "U+0000 (NUL)");
        // keyed requests go through another statement: refused the same way, and no key is taken
        refusedAndNothingWritten(
                postbox,
                JobRequest.builder("work")
                        .payload(Map.of("a", "\0"))
                        .idempotencyKey("k")
                        .build(),
                "U+0000 (NUL)");
    }

    @Test
    void anEscapedBackslashBeforeU0000IsNotANul() {
        Postbox postbox = engine(job -> {});
        long id = enqueueCommitted(postbox.outbox(), JobRequest.ofJson("work", "{\"path\":\"C:\\\\u0000\"}"))
                .jobId();
        assertThat(jdbc.queryForObject("SELECT payload ->> 'path' FROM outbox_job WHERE id = ?", String.class, id))
                .isEqualTo("C:\\u0000");
    }

    @Test
    void overLongKeysAndNamesAreRefusedBeforeTheDatabaseWithTheLimit() {
        String tooLong = "k".repeat(3000);
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .idempotencyKey(tooLong)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("idempotencyKey is 3000 characters long", "500 allowed", "SHA-256");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .orderingKey(tooLong)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("orderingKey is 3000 characters long", "500 allowed");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .queue(tooLong)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("queue is 3000 characters long", "100 allowed");
        assertThatThrownBy(() -> JobRequest.of(tooLong, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("kind is 3000 characters long", "200 allowed");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .fireKey(tooLong)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("fireKey is 3000 characters long", "500 allowed");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .idempotencyKey("a\r\nb")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll("idempotencyKey", "U+000D", "control characters");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .orderingKey("a\0b")
                        .build())
                .hasMessageContainingAll("orderingKey", "U+0000");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .fireKey("2026-12-01T10:00\n")
                        .build())
                .hasMessageContainingAll("fireKey", "U+000A");
        assertThatThrownBy(() -> JobRequest.of("wo\rrk", Map.of())).hasMessageContainingAll("kind", "U+000D");
        assertThatThrownBy(() -> JobRequest.builder("work")
                        .payload(Map.of())
                        .queue("ma\u0000il")
                        .build())
                .hasMessageContainingAll("queue", "U+0000");
    }

    /**
     * The maxima fit the indexes: the longest keys, in 3-byte characters, and the longest queue name
     * (ASCII only, see {@link QueueNames}) are stored and run.
     */
    @Test
    void keysAndNamesAtTheirMaximaAreStoredAndRun() {
        Postbox postbox = engine(job -> {});
        String key = "€".repeat(JobRequest.MAX_KEY_LENGTH);
        String queue = "q".repeat(JobRequest.MAX_QUEUE_LENGTH);
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("work")
                        .payload(Map.of())
                        .idempotencyKey(key)
                        .orderingKey(key)
                        .build());
        enqueueCommitted(
                postbox.outbox(),
                JobRequest.builder("work").payload(Map.of()).queue(queue).build());
        jdbc.update("INSERT INTO outbox_queue (name, paused) VALUES (?, true)", queue);
        postbox.runDueJobs();
        assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE idempotency_key = ?", key))
                .isOne();
    }

    /**
     * Rows written by plain SQL (another service, an operator) with headers that are not an object of
     * strings, or with a blank kind, still reach the handler lookup; none of them stops the claim that
     * returns the others.
     */
    @Test
    void rowsWrittenBySqlWithOddHeadersOrABlankKindDoNotStopTheClaim() {
        List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
        Postbox postbox = engine(job -> seen.add(job.headers()));
        jdbc.update("INSERT INTO outbox_job (queue, kind, payload, headers) VALUES"
                + " ('default', 'work', '{}', '{\"a\": null, \"b\": 1, \"c\": \"x\", \"d\": {\"e\": 2}, \"f\": true}'),"
                + " ('default', 'work', '{}', '[1, 2]'),"
                + " ('default', 'work', '{}', NULL),"
                + " ('default', '', '{}', NULL)");

        postbox.runDueJobs();

        assertThat(seen).containsExactlyInAnyOrder(Map.of("b", "1", "c", "x", "f", "true"), Map.of(), Map.of());
        assertThat(count("SELECT count(*) FROM outbox_job_archive")).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM outbox_job WHERE kind = '' AND state IN ('pending', 'retry')"))
                .as("the blank kind waits as an unknown kind, it is not lost")
                .isOne();
    }

    /** A handler error or response excerpt with NUL is still recorded: the outcome is not lost, the budget holds. */
    @Test
    void nulInAnAttemptsErrorOrDetailIsReplacedAndTheOutcomeRecorded() {
        // A receiver's 4xx whose body holds NUL, answered as a retry with details.
        Postbox postbox = engine((OutcomeHandler) job -> JobOutcome.retry("bad\0answer")
                .withDetails(new JobOutcome.Details(400, "{\"body\":\"body\\u0000text\"}")));
        long id = enqueueCommitted(postbox.outbox(), JobRequest.of("work", Map.of()))
                .jobId();
        for (int i = 0; i < 10 && count("SELECT count(*) FROM outbox_job") > 0; i++) {
            postbox.runDueJobs();
            jdbc.update("UPDATE outbox_job SET run_at = now() WHERE state = 'retry'");
        }
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE id = ? AND attempts = 2", id))
                .isOne();
        assertThat(jdbc.queryForList(
                        "SELECT error || ' ' || (detail ->> 'body') FROM outbox_attempt WHERE job_id = ? ORDER BY attempt",
                        String.class,
                        id))
                .hasSize(2)
                .allSatisfy(line -> assertThat(line).contains("bad\uFFFDanswer").contains("body\uFFFDtext"));
    }
}
