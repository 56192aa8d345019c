package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * V14 (time limits, results, tags) on a database that has jobs: installed up to V11 with live,
 * archived and dead jobs in it, then migrated; the old rows keep working (they run, replay, and read
 * through the admin API) beside new ones that use every new column.
 */
class JobModelMigrationTest {

    @Test
    void v14AppliesOnADatabaseWithLiveArchivedAndDeadJobsThatKeepWorking() throws Exception {
        HikariDataSource ds = TestDatabase.createEmpty();
        Postbox postbox = null;
        try {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                for (SchemaInstaller.Migration m : SchemaInstaller.migrations()) {
                    if (m.version() <= 11) {
                        s.execute(m.sql());
                    }
                }
                s.execute("INSERT INTO outbox_job (id, kind, payload) VALUES (1, 'work', '{}'), (2, 'work', '{}')");
                s.execute("INSERT INTO outbox_job_archive (id, queue, kind, payload, priority, state, attempts,"
                        + " max_attempts, created_at, finished_at)"
                        + " VALUES (3, 'default', 'work', '{}', 0, 'done', 1, 8, '2020-01-01', '2020-01-01')");
                s.execute("INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                        + " last_error, created_at) VALUES (4, 'default', 'work', '{}', 0, 8, 8, 'boom', now())");
                s.execute("SELECT setval('outbox_job_id_seq', 10)");
            }

            assertThat(new SchemaInstaller(ds).install())
                    .contains(14)
                    .containsExactlyElementsOf(SchemaInstaller.migrations().stream()
                            .map(SchemaInstaller.Migration::version)
                            .filter(v -> v > 11)
                            .toList());

            AtomicInteger ran = new AtomicInteger();
            postbox = Postbox.builder(ds)
                    .handler(HandlerRegistration.of("work", (OutcomeHandler) job -> {
                                ran.incrementAndGet();
                                return JobOutcome.done(Map.of("ran", job.id()));
                            })
                            .timeLimit(Duration.ofSeconds(30)))
                    .config(PostboxConfig.custom().build())
                    .build();
            Postbox engine = postbox;
            long tagged = new org.springframework.transaction.support.TransactionTemplate(
                            new org.springframework.jdbc.datasource.DataSourceTransactionManager(ds))
                    .execute(tx -> engine.outbox()
                            .enqueue(JobRequest.builder("work")
                                    .payload(Map.of())
                                    .tag("customer", "42")
                                    .timeLimit(Duration.ofSeconds(5))
                                    .build())
                            .jobId());
            assertThat(postbox.admin().replay(4)).isTrue();

            assertThat(postbox.runDueJobs()).isEqualTo(4);

            JdbcTemplate jdbc = new JdbcTemplate(ds);
            assertThat(ran).hasValue(4);
            assertThat(jdbc.queryForList(
                            "SELECT id || ':' || coalesce(result::text, '-') FROM outbox_job_archive ORDER BY id",
                            String.class))
                    .containsExactly(
                            "1:{\"ran\": 1}",
                            "2:{\"ran\": 2}",
                            "3:-",
                            "4:{\"ran\": 4}",
                            tagged + ":{\"ran\": " + tagged + "}");
            assertThat(postbox.admin().job(3).orElseThrow().tags()).isEmpty();
            assertThat(postbox.admin().jobsTagged(null, Map.of("customer", "42"), 10))
                    .extracting(TaggedJob::id)
                    .containsExactly(tagged);
            // the attempt log takes the new outcome
            assertThat(jdbc.update("INSERT INTO outbox_attempt (job_id, attempt, outcome, detail)"
                            + " VALUES (1, 9, 'timed_out', '{\"timeLimitMs\": 5000}')"))
                    .isEqualTo(1);
        } finally {
            if (postbox != null) {
                postbox.stop();
            }
            TestDatabase.drop(ds);
        }
    }
}
