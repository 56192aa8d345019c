package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A handler's result ({@link JobOutcome#done(Object)}) is stored with the finished job, readable
 * through the admin API and in {@code outbox_job_archive.result}; only the attempt that completes the
 * job leaves one, and one over the cap dead-letters the job with a message naming the job and the cap.
 */
class JobResultTest extends DatabaseTest {

    private static final RetryPolicy FAST_RETRY = RetryPolicy.custom()
            .base(Duration.ofMillis(1))
            .cap(Duration.ofMillis(1))
            .maxAttempts(3)
            .build();

    @BeforeAll
    void businessTable() {
        jdbc.execute("CREATE TABLE business_effect (job_id bigint PRIMARY KEY)");
    }

    private long enqueue(Postbox postbox, String kind) {
        return enqueueCommitted(postbox.outbox(), JobRequest.of(kind, Map.of("n", 7)))
                .jobId();
    }

    private String storedResult(long id) {
        return jdbc.queryForObject("SELECT result::text FROM outbox_job_archive WHERE id = ?", String.class, id);
    }

    @Test
    void aResultIsStoredWithTheDoneJobAndReadThroughTheAdminApi() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("invoice", (OutcomeHandler) job -> JobOutcome.done(Map.of("invoice", 42, "paid", true)))
                .config(fastConfig().build())
                .build());
        long id = enqueue(postbox, "invoice");

        postbox.runDueJobs();

        assertThat(storedResult(id)).isEqualTo("{\"paid\": true, \"invoice\": 42}");
        JobDetails details = postbox.admin().job(id).orElseThrow();
        assertThat(details.state()).isEqualTo("done");
        assertThat(details.resultJson()).isEqualTo("{\"paid\": true, \"invoice\": 42}");
    }

    @Test
    void aRetriedJobKeepsTheResultOfTheAttemptThatCompletedIt() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("flaky", (OutcomeHandler) job -> job.attempt() == 1
                                ? JobOutcome.retry("not yet")
                                : JobOutcome.done("attempt " + job.attempt()))
                        .retryPolicy(FAST_RETRY))
                .config(fastConfig().build())
                .build());
        long id = enqueue(postbox, "flaky");
        postbox.runDueJobs();
        jdbc.update("UPDATE outbox_job SET run_at = now() WHERE id = ?", id);

        postbox.runDueJobs();

        assertThat(storedResult(id)).isEqualTo("\"attempt 2\"");
    }

    @Test
    void aTransactionalHandlersResultCommitsWithItsWrites() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("reserve", (OutcomeHandler) job -> {
                            jdbc.update("INSERT INTO business_effect VALUES (?)", job.id());
                            return JobOutcome.done(Map.of("reserved", job.id()));
                        })
                        .transactional())
                .config(fastConfig().build())
                .build());
        long id = enqueue(postbox, "reserve");

        postbox.runDueJobs();

        assertThat(storedResult(id)).isEqualTo("{\"reserved\": " + id + "}");
        assertThat(count("SELECT count(*) FROM business_effect WHERE job_id = ?", id))
                .isEqualTo(1);
    }

    @Test
    void aResultOverTheCapDeadLettersTheJobNamingItAndTheCap() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler(HandlerRegistration.of("big", (OutcomeHandler) job -> {
                            jdbc.update("INSERT INTO business_effect VALUES (?)", job.id());
                            return JobOutcome.done("x".repeat(100));
                        })
                        .transactional())
                .config(fastConfig().maxResultBytes(64).build())
                .build());
        long id = enqueue(postbox, "big");

        postbox.runDueJobs();

        assertThat(jdbc.queryForObject(
                        "SELECT cause || ': ' || last_error FROM outbox_dead_letter WHERE id = ?", String.class, id))
                .startsWith("postbox.result-refused: the result of job " + id + " (kind big) is 102 bytes")
                .contains("cap of 64");
        assertThat(count("SELECT count(*) FROM business_effect"))
                .as("rolled back")
                .isZero();
        assertThat(postbox.admin().job(id).orElseThrow().resultJson())
                .as("a dead letter keeps no result")
                .isNull();
    }

    @Test
    void aJobDoneWithoutAResultHasNone() {
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("plain", job -> {})
                .config(fastConfig().build())
                .build());
        long id = enqueue(postbox, "plain");

        postbox.runDueJobs();

        assertThat(storedResult(id)).isNull();
        assertThat(postbox.admin().job(id).orElseThrow().resultJson()).isNull();
    }
}
