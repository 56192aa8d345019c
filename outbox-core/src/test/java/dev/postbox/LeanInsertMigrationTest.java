package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * V15 (the insert writes sort_at itself) on a database with live jobs: installed up to V14 with
 * pending, delayed, prioritised and key-waiting jobs, then migrated. The old rows keep their claim
 * order; an insert that leaves sort_at null (an older engine during a rolling upgrade, an operator's
 * SQL) still gets it; the engine's own insert computes the same value the trigger would.
 */
class LeanInsertMigrationTest {

    @Test
    void v15AppliesOnATableWithLiveJobsAndEveryInsertStillGetsItsClaimOrder() throws Exception {
        HikariDataSource ds = TestDatabase.createEmpty();
        Postbox postbox = null;
        try {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                for (SchemaInstaller.Migration m : SchemaInstaller.migrations()) {
                    if (m.version() <= 14) {
                        s.execute(m.sql());
                    }
                }
                s.execute("INSERT INTO outbox_job (id, kind, payload, priority) VALUES"
                        + " (1, 'work', '{\"n\": 1}', 0), (2, 'work', '{\"n\": 2}', 5)");
                s.execute("INSERT INTO outbox_job (id, kind, payload, ordering_key) VALUES"
                        + " (3, 'work', '{\"n\": 3}', 'k'), (4, 'work', '{\"n\": 4}', 'k')");
                s.execute("SELECT setval('outbox_job_id_seq', 10)");
            }
            JdbcTemplate jdbc = new JdbcTemplate(ds);
            assertThat(jdbc.queryForList("SELECT id FROM outbox_job WHERE sort_at = 'infinity'", Long.class))
                    .containsExactly(4L);

            assertThat(new SchemaInstaller(ds).install()).containsExactly(15);

            // the old rows' claim order is untouched by the migration
            assertThat(jdbc.queryForObject(
                            "SELECT count(*) FROM outbox_job WHERE sort_at = run_at - priority * interval '1 second'",
                            Long.class))
                    .isEqualTo(3L);
            // an insert that leaves sort_at null, as an engine before V15 does, still gets it from the trigger
            jdbc.update("INSERT INTO outbox_job (id, kind, payload, priority, run_at)"
                    + " VALUES (5, 'work', '{\"n\": 5}', 3, timestamptz '2020-01-01')");
            assertThat(jdbc.queryForObject("SELECT sort_at FROM outbox_job WHERE id = 5", java.sql.Timestamp.class)
                            .toInstant())
                    .isEqualTo(java.time.Instant.parse("2019-12-31T23:59:57Z"));

            List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
            postbox = Postbox.builder(ds)
                    .handler(
                            "work",
                            job -> ran.add(((Number) job.payload(Map.class).get("n")).intValue()))
                    .config(PostboxConfig.custom().build())
                    .build();
            Postbox engine = postbox;
            long delayed = new TransactionTemplate(new DataSourceTransactionManager(ds))
                    .execute(tx -> engine.outbox()
                            .enqueue(JobRequest.builder("work")
                                    .payload(Map.of("n", 6))
                                    .priority(7)
                                    .delay(java.time.Duration.ofHours(1))
                                    .build())
                            .jobId());
            // the engine's insert computes what the trigger computes: run_at shifted by the priority
            assertThat(jdbc.queryForObject(
                            "SELECT sort_at = run_at - interval '7 seconds' AND run_at > now() + interval '59 minutes'"
                                    + " FROM outbox_job WHERE id = ?",
                            Boolean.class,
                            delayed))
                    .isTrue();

            assertThat(postbox.runDueJobs()).isEqualTo(5);
            assertThat(ran).containsExactlyInAnyOrder(1, 2, 3, 4, 5);
            assertThat(ran.indexOf(3)).isLessThan(ran.indexOf(4));
            assertThat(jdbc.queryForList("SELECT id FROM outbox_job", Long.class))
                    .containsExactly(delayed);
        } finally {
            if (postbox != null) {
                postbox.stop();
            }
            TestDatabase.drop(ds);
        }
    }
}
