package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.ForeignDatabase;
import dev.postbox.testing.TestDatabase;
import java.io.InputStream;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Postbox refuses databases it cannot run on before it runs a statement, and tells which of its
 * migrations a database lacks, whoever applied the others.
 */
class SchemaVerifierTest {

    @Test
    void anotherDatabaseIsRefusedNamingItAndTheMinimumPostgreSqlVersion() {
        SchemaVerifier h2 = new SchemaVerifier(ForeignDatabase.dataSource("H2", "2.3.232 (2024-08-11)", 2));

        assertThatThrownBy(h2::requireSupportedDatabase)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Postbox needs PostgreSQL 12 or newer")
                .hasMessageContaining("its DataSource is H2 2.3.232");
        assertThatThrownBy(() -> new SchemaInstaller(ForeignDatabase.dataSource("H2", "2.3.232", 2)).install())
                .as("the installer checks before it runs a statement (the stand-in would fail any)")
                .hasMessageContaining("Postbox needs PostgreSQL 12 or newer");
    }

    @Test
    void anOldPostgreSqlIsRefusedNamingTheFeatureThatNeedsTheMinimum() {
        SchemaVerifier old = new SchemaVerifier(ForeignDatabase.dataSource("PostgreSQL", "11.22", 11));

        assertThatThrownBy(old::requireSupportedDatabase)
                .hasMessageContaining("Postbox needs PostgreSQL 12 or newer (its schema uses stored generated columns)")
                .hasMessageContaining("its DataSource is PostgreSQL 11.22");
        new SchemaVerifier(ForeignDatabase.dataSource("PostgreSQL", "12.0", 12)).requireSupportedDatabase();
    }

    @Test
    void theServerOfTheseTestsIsSupported() {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            new SchemaVerifier(ds).requireSupportedDatabase();
            int major = new JdbcTemplate(ds).queryForObject("SHOW server_version_num", Integer.class) / 10000;
            assertThat(major).isGreaterThanOrEqualTo(SchemaVerifier.MINIMUM_POSTGRESQL_VERSION);
        } finally {
            TestDatabase.drop(ds);
        }
    }

    @Test
    void missingMigrationsAreFoundByTheirTablesAndTheInstallerAppliesOnlyThose() {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            SchemaVerifier verifier = new SchemaVerifier(ds);
            List<SchemaInstaller.Migration> all = SchemaInstaller.migrations();
            assertThat(verifier.missingMigrations()).containsExactlyElementsOf(all);
            assertThat(verifier.installedVersion()).isZero();

            // V1 and V2 applied by hand, as a DBA or another tool would: no Postbox bookkeeping at all.
            JdbcTemplate jdbc = new JdbcTemplate(ds);
            jdbc.execute(all.get(0).sql());
            jdbc.execute(all.get(1).sql());
            assertThat(verifier.missingMigrations()).containsExactlyElementsOf(all.subList(2, all.size()));
            assertThat(verifier.installedVersion()).isEqualTo(2);
            assertThat(verifier.missingObjects())
                    .contains("outbox_endpoint", "outbox_job.lease_started")
                    .doesNotContain("outbox_job");

            // The installer takes over: it records what it found and applies only the rest.
            assertThat(new SchemaInstaller(ds).install())
                    .startsWith(3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
                    .containsExactlyElementsOf(all.subList(2, all.size()).stream()
                            .map(SchemaInstaller.Migration::version)
                            .toList());
            assertThat(jdbc.queryForList(
                            "SELECT description FROM outbox_schema_version ORDER BY version", String.class))
                    .containsExactly(
                            "jobs (found, applied by another tool)",
                            "schedules (found, applied by another tool)",
                            "http delivery",
                            "attempt start marks",
                            "rate bucket line",
                            "console indexes",
                            "notify after commit",
                            "installation id",
                            "dead letter cause",
                            "tenants",
                            "key waiting",
                            "commit order",
                            "dead letter groups",
                            "job model",
                            "lean insert");
            assertThat(verifier.missingMigrations()).isEmpty();
            assertThat(verifier.missingObjects()).isEmpty();
            assertThat(verifier.installedVersion())
                    .isEqualTo(all.get(all.size() - 1).version());

            jdbc.execute("DROP TABLE outbox_schedule CASCADE");
            assertThat(verifier.missingMigrations())
                    .extracting(SchemaInstaller.Migration::version)
                    .as("V2 created the table; V10 added its tenant column")
                    .containsExactly(2, 10);
            assertThat(verifier.installedVersion()).isEqualTo(1);
        } finally {
            TestDatabase.drop(ds);
        }
    }

    /**
     * V7 creates nothing: it drops the insert trigger that notified in every enqueueing transaction.
     * It counts as applied when outbox_job exists without that trigger, so that a database migrated
     * by another tool up to V6 is not taken for a V7 one (and Flyway's baseline stays at 6).
     */
    @Test
    void aMigrationThatDropsATriggerIsAppliedOnlyWhenTheTriggerIsGone() {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            SchemaVerifier verifier = new SchemaVerifier(ds);
            List<SchemaInstaller.Migration> all = SchemaInstaller.migrations();
            SchemaInstaller.Migration v7 = all.get(6);
            assertThat(v7.version()).isEqualTo(7);
            assertThat(v7.objects()).containsExactly("trigger outbox_job_notify on outbox_job dropped");
            assertThat(verifier.missingMigrations())
                    .as("without outbox_job there is nothing the trigger was dropped from")
                    .contains(v7);

            JdbcTemplate jdbc = new JdbcTemplate(ds);
            all.subList(0, 6).forEach(m -> jdbc.execute(m.sql()));
            List<SchemaInstaller.Migration> fromV7 = all.subList(6, all.size());
            assertThat(verifier.missingMigrations()).containsExactlyElementsOf(fromV7);
            assertThat(verifier.missingObjects()).contains("trigger outbox_job_notify on outbox_job dropped");
            assertThat(verifier.installedVersion()).isEqualTo(6);

            assertThat(new SchemaInstaller(ds).install())
                    .containsExactlyElementsOf(fromV7.stream()
                            .map(SchemaInstaller.Migration::version)
                            .toList());
            assertThat(verifier.missingMigrations()).isEmpty();
            assertThat(verifier.installedVersion())
                    .isEqualTo(all.get(all.size() - 1).version());
            assertThat(jdbc.queryForObject(
                            "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'outbox_job'::regclass"
                                    + " AND tgname = 'outbox_job_notify'",
                            Long.class))
                    .isZero();
        } finally {
            TestDatabase.drop(ds);
        }
    }

    /**
     * V10 replaces V1's claim and ordering indexes with tenant-aware ones: it counts as applied only
     * when the old ones are gone, and V1 is not reported missing for lacking the indexes V10 dropped.
     */
    @Test
    void aMigrationThatDropsAnIndexIsAppliedOnlyWhenTheIndexIsGone() {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            SchemaVerifier verifier = new SchemaVerifier(ds);
            List<SchemaInstaller.Migration> all = SchemaInstaller.migrations();
            SchemaInstaller.Migration v10 =
                    all.stream().filter(m -> m.version() == 10).findFirst().orElseThrow();
            assertThat(v10.objects())
                    .contains("index outbox_job_claim_idx dropped", "index outbox_job_ordering_idx dropped");

            JdbcTemplate jdbc = new JdbcTemplate(ds);
            all.stream().filter(m -> m.version() < 10).forEach(m -> jdbc.execute(m.sql()));
            assertThat(verifier.missingMigrations())
                    .containsExactlyElementsOf(
                            all.stream().filter(m -> m.version() >= 10).toList());
            assertThat(verifier.missingObjects()).contains("index outbox_job_claim_idx dropped");

            assertThat(new SchemaInstaller(ds).install()).startsWith(10);
            assertThat(verifier.missingMigrations()).isEmpty();
            assertThat(count(jdbc, "SELECT count(*) FROM pg_class WHERE relname = 'outbox_job_claim_idx'"))
                    .isZero();
        } finally {
            TestDatabase.drop(ds);
        }
    }

    /**
     * V10 drops V1's claim and ordering indexes in the schema of the installation it migrates, not
     * through the search_path. Flyway and Liquibase run it with the schema first and the connection's
     * path after it ({@code billing, public}); when billing lacks one of the indexes (here its claim
     * index, rebuilt by a DBA under another name) a bare {@code DROP INDEX} would drop the one of the
     * installation in public, still on V9 and claiming through it.
     */
    @Test
    void v10DropsTheOldIndexesOfItsOwnSchemaOnlyWhateverTheSearchPath() throws Exception {
        HikariDataSource ds = TestDatabase.createEmpty();
        try (java.sql.Connection c = ds.getConnection();
                java.sql.Statement s = c.createStatement()) {
            List<SchemaInstaller.Migration> all = SchemaInstaller.migrations();
            for (SchemaInstaller.Migration m : all) {
                if (m.version() < 10) {
                    s.execute(m.sql()); // public
                }
            }
            s.execute("CREATE SCHEMA billing");
            s.execute("SET search_path = billing");
            for (SchemaInstaller.Migration m : all) {
                if (m.version() < 10) {
                    s.execute(m.sql());
                }
            }
            s.execute("ALTER INDEX billing.outbox_job_claim_idx RENAME TO billing_claim_rebuilt");
            s.execute("SET search_path = billing, public");
            s.execute(all.stream()
                    .filter(m -> m.version() == 10)
                    .findFirst()
                    .orElseThrow()
                    .sql());
            s.execute("RESET search_path");

            JdbcTemplate jdbc = new JdbcTemplate(ds);
            assertThat(jdbc.queryForList(
                            "SELECT n.nspname || '.' || c.relname FROM pg_class c"
                                    + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                                    + " WHERE c.relname IN ('outbox_job_claim_idx', 'outbox_job_ordering_idx')"
                                    + " ORDER BY 1",
                            String.class))
                    .as("public's installation keeps its indexes; billing's old ordering index is gone")
                    .containsExactly("public.outbox_job_claim_idx", "public.outbox_job_ordering_idx");
            assertThat(count(
                            jdbc,
                            "SELECT count(*) FROM pg_indexes WHERE schemaname = 'billing'"
                                    + " AND indexname = 'outbox_job_tenant_claim_idx'"))
                    .isOne();
        } finally {
            TestDatabase.drop(ds);
        }
    }

    private static long count(JdbcTemplate jdbc, String sql) {
        Long n = jdbc.queryForObject(sql, Long.class);
        return n == null ? 0 : n;
    }

    @Test
    void everyMigrationCreatesSomethingToRecogniseItBy() {
        for (SchemaInstaller.Migration m : SchemaInstaller.migrations()) {
            assertThat(m.objects()).as("objects of V" + m.version()).isNotEmpty();
        }
        assertThat(SchemaInstaller.migrations().get(0).objects())
                .startsWith("outbox_job")
                .contains("outbox_job_archive", "outbox_idempotency_key", "outbox_job_claim_idx");
        assertThat(SchemaInstaller.migrations().get(3).objects())
                .as("a migration that only adds columns is recognised by them")
                .containsExactly("outbox_job.lease_started", "outbox_job.unstarted_expiries");
    }

    @Test
    void theLiquibaseChangeLogAppliesEveryMigrationInOrder() throws Exception {
        String changelog;
        try (InputStream in = new ClassPathResource(SchemaInstaller.LIQUIBASE_CHANGELOG).getInputStream()) {
            changelog = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Matcher files = Pattern.compile("<sqlFile path=\"([^\"]+)\"").matcher(changelog);
        List<String> listed = new java.util.ArrayList<>();
        while (files.find()) {
            listed.add(files.group(1));
        }
        assertThat(listed)
                .as("a new migration needs its change set in " + SchemaInstaller.LIQUIBASE_CHANGELOG)
                .containsExactlyElementsOf(SchemaInstaller.migrations().stream()
                        .map(m -> m.resource().getFilename())
                        .toList());
        assertThat(changelog).contains("splitStatements=\"false\"");
    }

    /**
     * V11's triggers read the live table of their own installation, whatever the search_path of the
     * session whose insert or delete fires them: an application keeps Postbox in schema billing and
     * its own connections on public, which has no Postbox tables.
     */
    @Test
    void v11TriggersFindTheirTableWhateverTheSearchPath() throws Exception {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            new SchemaInstaller(PostboxSchema.named("billing").dataSource(ds)).install();
            JdbcTemplate jdbc = new JdbcTemplate(ds);
            assertThat(jdbc.queryForObject("SHOW search_path", String.class)).doesNotContain("billing");
            for (int seq = 0; seq < 3; seq++) {
                jdbc.update(
                        "INSERT INTO billing.outbox_job (kind, ordering_key, payload) VALUES ('step', 'k', ?::jsonb)",
                        "{\"seq\": " + seq + "}");
            }
            String waiting = "SELECT payload->>'seq' FROM billing.outbox_job WHERE sort_at = 'infinity' ORDER BY id";
            assertThat(jdbc.queryForList(waiting, String.class)).containsExactly("1", "2");

            jdbc.update("DELETE FROM billing.outbox_job WHERE payload->>'seq' = '0'");
            assertThat(jdbc.queryForList(waiting, String.class)).containsExactly("2");
        } finally {
            TestDatabase.drop(ds);
        }
    }
}
