package dev.postbox.spring.test;

import dev.postbox.JsonCodec;
import dev.postbox.Postbox;
import dev.postbox.PostboxSchema;
import dev.postbox.PostboxTestSupport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionTranslator;

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
    private final DataSource dataSource;
    private final JsonCodec codec;
    private final PostboxSchema schema;
    private final SQLExceptionTranslator exceptions;

    public PostboxTestHelper(Postbox postbox, DataSource dataSource, JsonCodec codec) {
        this.postbox = postbox;
        this.dataSource = dataSource;
        this.codec = codec;
        this.schema = PostboxSchema.of(dataSource);
        // A failed statement is the DataAccessException JdbcTemplate would throw for it.
        this.exceptions = new JdbcTemplate(dataSource).getExceptionTranslator();
    }

    /** Jobs of the kind waiting or running in {@code outbox_job}, oldest first. */
    public List<EnqueuedJob> enqueued(String kind) {
        return onTestConnection(
                "Reading the jobs of kind '" + kind + "'",
                c -> PostboxTestSupport.jobsOfKind(c, kind).stream()
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
        return onTestConnection("Advancing time by " + duration, c -> PostboxTestSupport.advanceTime(c, duration));
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
        onTestConnection("Resetting Postbox's tables", c -> {
            PostboxTestSupport.reset(c);
            return true; // (nothing to return)
        });
    }

    /**
     * Runs the work on the connection of the test's transaction when there is one (else on a connection
     * of its own), qualified for Postbox's schema: in a transaction Spring hands out the transaction's
     * own connection, which does not qualify Postbox's tables (postbox.schema.name) itself.
     */
    private <T> T onTestConnection(String task, Work<T> work) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            return work.run(schema.connection(c));
        } catch (SQLException e) {
            DataAccessException translated = exceptions.translate(task, null, e);
            throw translated != null ? translated : new UncategorizedSQLException(task, null, e);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }
}
