package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.TenantStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's hot statements run with PostgreSQL's generic plan (issue 15: re-planning them at
 * every claim made the latency knee), and the setting that asks for it never outlives them: the
 * application's own statements on the same pooled connection plan as before.
 */
class GenericPlansTest extends DatabaseTest {

    private static final int CALLS = 12;

    @Test
    void theClaimAndTheTenantsQueryArePlannedOnceAndTheSettingDoesNotLeak() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            boolean countsPlans = c.getMetaData().getDatabaseMajorVersion() >= 14;
            if ("true".equals(System.getenv("CI"))) {
                assertThat(countsPlans).as("CI's PostgreSQL counts plans (14+)").isTrue();
            }
            assumeTrue(countsPlans, "pg_prepared_statements counts plans since PostgreSQL 14");
            String before = planCacheMode(c);
            jdbc.update("INSERT INTO outbox_job (kind, payload) SELECT 'k', '{}' FROM generate_series(1, ?)", CALLS);
            c.setAutoCommit(true);
            ClaimStore claims = new ClaimStore(JsonCodec.jackson());
            int claimed = 0;
            for (int i = 0; i < CALLS; i++) {
                assertThat(TenantStore.tenantsWithWork(c, JobRequest.DEFAULT_QUEUE, "", 16))
                        .as("tenants with work before claim %d", i)
                        .containsExactly("");
                claimed += claims.claim(c, JobRequest.DEFAULT_QUEUE, 1, "worker-1", Duration.ofSeconds(30))
                        .size();
                assertThat(planCacheMode(c))
                        .as("plan_cache_mode on the connection after claim %d", i)
                        .isEqualTo(before);
            }
            assertThat(claimed).isEqualTo(CALLS);

            // The driver prepared both on the server after its threshold (5 uses); every execution
            // of the prepared statements since then used the one generic plan.
            List<long[]> plans = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                            + " WHERE statement LIKE '%lease_token = nextval%'"
                            + " OR statement LIKE 'WITH RECURSIVE after AS%'")) {
                while (rs.next()) {
                    plans.add(new long[] {rs.getLong(1), rs.getLong(2)});
                }
            }
            assertThat(plans).as("server-prepared claim and tenants statements").hasSize(2);
            for (long[] p : plans) {
                assertThat(p[0]).as("executions with the generic plan").isGreaterThanOrEqualTo(CALLS - 5);
                assertThat(p[1]).as("custom plans").isZero();
            }

            // The application's statements on that connection still get custom plans.
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM outbox_job WHERE kind = ?")) {
                for (int i = 0; i < CALLS; i++) {
                    ps.setString(1, "k");
                    ps.executeQuery().close();
                }
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT custom_plans FROM pg_prepared_statements"
                            + " WHERE statement LIKE 'SELECT count(*) FROM outbox_job WHERE kind = %'")) {
                assertThat(rs.next())
                        .as("the application's statement is server-prepared")
                        .isTrue();
                assertThat(rs.getLong(1)).as("its custom plans").isPositive();
            }
        }
    }

    private static String planCacheMode(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW plan_cache_mode")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
