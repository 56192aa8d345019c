package dev.postbox.spring.test;

import dev.postbox.JsonCodec;
import dev.postbox.Postbox;
import dev.postbox.PostboxSchema;
import dev.postbox.PostboxTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Test support for applications using Postbox, in the spirit of River's {@code rivertest}: assert
 * what was enqueued, run due jobs in the test's thread, and move jobs forward in time.
 *
 * <p>Queries run on the application's {@code DataSource} and join the test's transaction when there
 * is one, so {@link #assertEnqueued} sees jobs written in a {@code @Transactional} test that has not
 * committed. Run jobs only from tests that commit (jobs written in a rolled-back test transaction do
 * not exist for the worker).
 *
 * <p>Time moves for jobs, not for clocks: {@link #advanceTime(Duration)} shifts the {@code run_at} of
 * waiting jobs back, which makes delayed and retrying jobs due now. The database clock, the JVM clock
 * and {@code expires_at} are unchanged.
 *
 * <p>Use {@link PostboxTest @PostboxTest} to get this helper as a bean with the background worker
 * switched off, so that only {@link #runDueJobs()} runs jobs.
 */
public final class PostboxTestHelper {

    private final Postbox postbox;
    private final JdbcTemplate jdbc;
    private final JsonCodec codec;
    private final PostboxSchema schema;

    public PostboxTestHelper(Postbox postbox, DataSource dataSource, JsonCodec codec) {
        this.postbox = postbox;
        this.jdbc = new JdbcTemplate(dataSource);
        this.codec = codec;
        this.schema = PostboxSchema.of(dataSource);
    }

    /** Jobs of the kind waiting or running in {@code outbox_job}, oldest first. */
    public List<EnqueuedJob> enqueued(String kind) {
        return onTestConnection(c -> PostboxTestSupport.jobsOfKind(c, kind).stream()
                .map(j -> new EnqueuedJob(
                        j.id(),
                        j.queue(),
                        j.kind(),
                        j.payloadJson(),
                        j.idempotencyKey(),
                        j.orderingKey(),
                        j.priority(),
                        j.state(),
                        j.attempts(),
                        j.runAt(),
                        codec))
                .collect(Collectors.toCollection(ArrayList::new))); // modifiable, as JdbcTemplate's
    }

    /** Asserts that exactly one job of the kind is waiting, and returns it. */
    public EnqueuedJob assertEnqueued(String kind) {
        List<EnqueuedJob> jobs = enqueued(kind);
        if (jobs.size() != 1) {
            throw new AssertionError("Expected one job of kind '" + kind + "' in outbox_job, found " + jobs.size()
                    + (jobs.isEmpty() ? "" : ": " + jobs));
        }
        return jobs.get(0);
    }

    /**
     * Asserts that a job of the kind whose payload (read as {@code type}) matches is waiting, and
     * returns the first such job.
     */
    public <T> EnqueuedJob assertEnqueued(String kind, Class<T> type, Predicate<? super T> payloadMatches) {
        List<EnqueuedJob> jobs = enqueued(kind);
        for (EnqueuedJob job : jobs) {
            if (payloadMatches.test(job.payload(type))) {
                return job;
            }
        }
        throw new AssertionError("Expected a job of kind '" + kind + "' whose " + type.getSimpleName()
                + " payload matches, found " + (jobs.isEmpty() ? "no job of that kind" : jobs));
    }

    /** Asserts that no job of the kind is waiting or running. */
    public void assertNotEnqueued(String kind) {
        List<EnqueuedJob> jobs = enqueued(kind);
        if (!jobs.isEmpty()) {
            throw new AssertionError("Expected no job of kind '" + kind + "' in outbox_job, found " + jobs);
        }
    }

    /** Claims and runs due jobs in this thread until none is due; returns how many ran. */
    public int runDueJobs() {
        return postbox.runDueJobs();
    }

    /**
     * Makes waiting jobs (pending or retrying) due {@code duration} earlier: {@code UPDATE outbox_job
     * SET run_at = run_at - duration}. Returns how many jobs moved.
     */
    public int advanceTime(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException(
                    "duration may not be negative: time only moves forward, was " + duration);
        }
        return onTestConnection(c -> PostboxTestSupport.advanceTime(c, duration));
    }

    /** {@link #advanceTime(Duration)} then {@link #runDueJobs()}; returns how many jobs ran. */
    public int runJobsDueWithin(Duration duration) {
        advanceTime(duration);
        return runDueJobs();
    }

    /** Number of dead letters. */
    public long deadLetterCount() {
        return postbox.admin().deadLetterCount();
    }

    /** Deletes every job, dead letter, archived job and idempotency key: a clean slate between tests. */
    public void reset() {
        onTestConnection(c -> {
            PostboxTestSupport.reset(c);
            return true; // (nothing to return)
        });
    }

    /**
     * Runs the work on the connection of the test's transaction when there is one (else on a connection
     * of its own), qualified for Postbox's schema: in a transaction Spring hands out the transaction's
     * own connection, which does not qualify Postbox's tables (postbox.schema.name) itself. Failures
     * are JdbcTemplate's {@code DataAccessException}s.
     */
    private <T> T onTestConnection(ConnectionCallback<T> work) {
        T result = jdbc.execute((ConnectionCallback<T>) c -> work.doInConnection(schema.connection(c)));
        return Objects.requireNonNull(result, "connection work returned nothing");
    }
}
