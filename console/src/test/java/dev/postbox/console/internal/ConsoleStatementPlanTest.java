package dev.postbox.console.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * EXPLAIN of the console's statements (its stores') at a moderate volume (300,000 archived jobs over seven days,
 * 30,000 dead letters, 10,000 live jobs, 20,000 failed deliveries): each reads through the index it
 * was written for, never a sequential scan of the archive or of the dead letters.
 */
class ConsoleStatementPlanTest {

    private static HikariDataSource ds;

    @BeforeAll
    static void fill() throws Exception {
        ds = TestDatabase.create();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO outbox_job_archive (id, queue, kind, endpoint, idempotency_key, payload, priority,"
                    + " state, attempts, max_attempts, created_at, started_at, finished_at)"
                    + " SELECT g, 'default', 'kind-' || (g % 20), CASE WHEN g % 4 = 0 THEN 'ep-' || (g % 8) END,"
                    + " 'key-' || g, '{}', 0, 'done', 1, 8, ts, ts, ts"
                    + " FROM (SELECT g, now() - (300000 - g) * interval '2 seconds' AS ts"
                    + "       FROM generate_series(1, 300000) g) x");
            s.execute("INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                    + " last_error, created_at, dead_at) SELECT 1000000 + g, 'q' || (g % 3), 'kind-' || (g % 5),"
                    + " '{}', (g % 3) - 1, 8, 8, 'failure ' || (g % 40) || ' of order ' || (10000 + g),"
                    + " now() - interval '1 day', now() - g * interval '3 seconds' FROM generate_series(1, 30000) g");
            s.execute("INSERT INTO outbox_job (queue, kind, payload, priority, state) SELECT 'q' || (g % 3),"
                    + " 'kind-' || (g % 5), '{}', 0, 'pending' FROM generate_series(1, 10000) g");
            s.execute("INSERT INTO outbox_attempt (job_id, attempt, outcome, error, duration_ms, finished_at, detail)"
                    + " SELECT g, 1, 'retry', 'HTTP 503', 100, now() - g * interval '5 seconds',"
                    + " jsonb_build_object('endpoint', 'ep-' || (g % 8)) FROM generate_series(1, 20000) g");
            s.execute("VACUUM ANALYZE");
        }
    }

    @AfterAll
    static void drop() {
        TestDatabase.drop(ds);
    }

    private static String explain(String sql, Object... params) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] instanceof String[] array) {
                    ps.setArray(i + 1, c.createArrayOf("text", array));
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    private static void noSeqScanOfTheBigTables(String plan) {
        // Small daily partitions may be scanned whole (the planner's right choice for a few rows);
        // the bulk of the archive, in the default partition here, never is.
        assertThat(plan)
                .doesNotContain("Seq Scan on outbox_job_archive_default")
                .doesNotContain("Seq Scan on outbox_dead_letter")
                .doesNotContain("Seq Scan on outbox_attempt");
    }

    @Test
    void theLastHourReadsOnlyTheLastHour() throws Exception {
        String plan = explain(LastHourStore.LAST_HOUR);
        assertThat(plan).contains("finished_at_idx", "outbox_attempt_finished_idx", "outbox_dead_letter_dead_at_idx");
        noSeqScanOfTheBigTables(plan);
    }

    @Test
    void deadLetterGroupsOfOneKindComeFromTheGroupIndex() throws Exception {
        String plan = explain(DeadLetterGroupStore.GROUPS, null, null, "kind-3", "kind-3", null, null, 100);
        assertThat(plan).contains("outbox_dead_letter_group_idx");
        noSeqScanOfTheBigTables(plan);
    }

    @Test
    void everyJobSearchUsesAnIndex() throws Exception {
        JobSearchStore store = new JobSearchStore(new ConsoleDatabase(ds));
        Instant now = Instant.now();
        List<JobSearch> searches = new ArrayList<>();
        searches.add(new JobSearch(123L, null, null, null, null, null, null, now.minus(Duration.ofHours(1)), now));
        searches.add(new JobSearch(null, "key-77", null, null, null, null, null, now.minus(Duration.ofHours(1)), now));
        searches.add(new JobSearch(null, null, null, "kind-3", null, null, null, now.minus(Duration.ofHours(1)), now));
        searches.add(
                new JobSearch(null, null, "customer-1", null, null, null, null, now.minus(Duration.ofHours(6)), now));
        searches.add(new JobSearch(null, null, null, null, "q1", "dead", null, now.minus(Duration.ofHours(24)), now));
        searches.add(new JobSearch(null, null, null, null, null, null, "acme", now.minus(Duration.ofHours(24)), now));
        for (JobSearch q : searches) {
            JobSearchStore.Where w = store.searchStatement(q, 50);
            String plan = explain(w.sql(), w.params().toArray());
            assertThat(plan).as(q.toString()).contains("Index");
            noSeqScanOfTheBigTables(plan);
        }
    }

    @Test
    void endpointStatisticsAndErrorsUseTheEndpointIndex() throws Exception {
        String[] endpoints = {"ep-1", "ep-2"};
        String stats = explain(EndpointStatsStore.ENDPOINT_STATS, endpoints, endpoints, endpoints, endpoints);
        assertThat(stats).contains("outbox_attempt_endpoint_idx", "finished_at_idx");
        noSeqScanOfTheBigTables(stats);
        String errors = explain(EndpointStatsStore.ENDPOINT_ERRORS, "ep-1", 10);
        assertThat(errors).contains("outbox_attempt_endpoint_idx");
        noSeqScanOfTheBigTables(errors);
    }

    @Test
    void recentFiresUseTheFireKeyIndexes() throws Exception {
        String plan = explain(
                ScheduleFireStore.RECENT_FIRES,
                "nightly@",
                "nightlyA",
                8,
                "nightly@",
                "nightlyA",
                8,
                "nightly@",
                "nightlyA",
                8,
                8);
        assertThat(plan).contains("outbox_job_archive_default", "fire_key");
        noSeqScanOfTheBigTables(plan);
    }
}
