package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.SchemaInstaller;
import dev.postbox.spring.internal.EmbeddedDatabases;
import dev.postbox.testing.ForeignDatabase;
import dev.postbox.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Who creates Postbox's tables, and what happens when nobody did: the application starts only on a
 * PostgreSQL that has them, and otherwise fails with a message that says what to do.
 */
class PostboxSchemaTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                    BootAutoConfigurations.TRANSACTION,
                    BootAutoConfigurations.FLYWAY,
                    BootAutoConfigurations.LIQUIBASE,
                    PostboxAutoConfiguration.class))
            .withPropertyValues(
                    "postbox.worker.enabled=false", "spring.flyway.enabled=false", "spring.liquibase.enabled=false");

    @Test
    void theDefaultOnAServerThatIsNotEmbeddedFailsFastSayingWhatToDo() {
        HikariDataSource probe = TestDatabase.createEmpty();
        boolean embedded = EmbeddedDatabases.isEmbedded(probe);
        TestDatabase.drop(probe);
        TestDataSources.empty(runner).run(context -> {
            if (embedded) {
                // Without POSTBOX_TEST_JDBC_URL the tests run on zonky's embedded PostgreSQL: it gets the schema.
                assertThat(context).hasNotFailed();
                assertThat(missingObjects(context)).isEmpty();
                return;
            }
            assertThat(context).hasFailed();
            assertThat(report(context.getStartupFailure()))
                    .contains("Postbox's tables are missing from its database: migrations " + allVersions()
                            + " of classpath:db/postbox are not applied")
                    .contains("missing: outbox_job,")
                    .contains("postbox.schema.initialize=embedded applies them only to an embedded or a"
                            + " Testcontainers (@ServiceConnection) database")
                    .contains("postbox.schema.initialize=always")
                    .contains("postbox_schema_history")
                    .contains("<include file=\"db/postbox/db.changelog-postbox.xml\"/>")
                    .contains("add classpath:db/postbox to spring.flyway.locations")
                    .contains("docs/schema.md");
        });
    }

    @Test
    void neverStillFailsFastOnMissingTables() {
        TestDataSources.empty(runner)
                .withPropertyValues("postbox.schema.initialize=never")
                .run(context -> assertThat(report(context.getStartupFailure()))
                        .contains("migrations " + allVersions() + " of")
                        .contains("postbox.schema.initialize=never leaves them to you"));
    }

    @Test
    void aSchemaMissingOneMigrationIsNamedPrecisely() {
        HikariDataSource ds = TestDatabase.create();
        // outbox_fanout comes with V3 and gains event_key in V8: both are named, with what is missing.
        new JdbcTemplate(ds).execute("DROP TABLE outbox_fanout");
        TestDataSources.on(runner, ds)
                .run(context -> assertThat(report(context.getStartupFailure()))
                        .contains("migrations V3, V8 of classpath:db/postbox are not applied (missing:"
                                + " outbox_fanout, outbox_fanout_completed_idx, outbox_fanout.event_key)"));
    }

    @Test
    void aMigrationThatOnlyAddsColumnsIsMissedWhenItsColumnsAre() {
        HikariDataSource ds = TestDatabase.create();
        new JdbcTemplate(ds).execute("ALTER TABLE outbox_job DROP COLUMN unstarted_expiries");
        TestDataSources.on(runner, ds)
                .run(context -> assertThat(report(context.getStartupFailure()))
                        .contains("migrations V4 of classpath:db/postbox are not applied (missing:"
                                + " outbox_job.unstarted_expiries)"));
    }

    @Test
    void alwaysInstallsWithPostboxsInstallerWhenTheApplicationHasNoFlyway() {
        TestDataSources.empty(runner)
                .withPropertyValues("postbox.schema.initialize=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(missingObjects(context)).isEmpty();
                    assertThat(jdbc(context).queryForList("SELECT version FROM outbox_schema_version", Integer.class))
                            .containsExactlyElementsOf(versions());
                    assertThat(tableExists(context, "postbox_schema_history")).isFalse();
                });
    }

    @Test
    void flywayRunsPostboxsMigrationsWithTheirOwnHistoryBesideTheApplicationsV1() {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            ApplicationContextRunner app = runner.withBean(
                            "dataSource", DataSource.class, () -> ds, d -> d.setDestroyMethodName(""))
                    .withPropertyValues(
                            "spring.flyway.enabled=true",
                            "spring.flyway.locations=classpath:db/app-flyway",
                            "postbox.schema.initialize=always");
            app.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(jdbc(context)
                                .queryForList(
                                        "SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank",
                                        String.class))
                        .as("the application's history: its own V1 and V2 only")
                        .containsExactly("1", "2");
                assertThat(jdbc(context)
                                .queryForList(
                                        "SELECT version || ':' || type FROM postbox_schema_history WHERE success"
                                                + " ORDER BY installed_rank",
                                        String.class))
                        .as("Postbox's own history: baselined below V1 (the schema had the application's tables),"
                                + " then every migration")
                        .containsExactlyElementsOf(Stream.concat(
                                        Stream.of("0:BASELINE"),
                                        versions().stream().map(v -> v + ":SQL"))
                                .toList());
                assertThat(tableExists(context, "app_order")).isTrue();
                assertThat(missingObjects(context)).isEmpty();
                assertThat(tableExists(context, "outbox_schema_version"))
                        .as("not Postbox's installer")
                        .isFalse();
                enqueueOne(context);
            });
            // A restart applies nothing, on either side, and keeps the job.
            app.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(jdbc(context).queryForObject("SELECT count(*) FROM postbox_schema_history", Long.class))
                        .isEqualTo(versions().size() + 1);
                assertThat(jdbc(context).queryForObject("SELECT count(*) FROM outbox_job", Long.class))
                        .isEqualTo(1);
            });
        } finally {
            TestDatabase.drop(ds);
        }
    }

    @Test
    void flywayTakesOverASchemaThatPostboxsInstallerCreated() {
        TestDataSources.withSchema(runner)
                .withPropertyValues(
                        "spring.flyway.enabled=true",
                        "spring.flyway.locations=classpath:db/app-flyway",
                        "spring.flyway.baseline-on-migrate=true",
                        "spring.flyway.baseline-version=0",
                        "postbox.schema.initialize=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(jdbc(context)
                                    .queryForList(
                                            "SELECT version || ':' || type FROM postbox_schema_history"
                                                    + " ORDER BY installed_rank",
                                            String.class))
                            .as("baselined at the version found: nothing runs twice")
                            .containsExactly(versions().get(versions().size() - 1) + ":BASELINE");
                });
    }

    @Test
    void anApplicationFlywayWithPostboxsLocationSatisfiesTheCheck() {
        TestDataSources.empty(runner)
                .withPropertyValues("spring.flyway.enabled=true", "spring.flyway.locations=classpath:db/postbox")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(missingObjects(context)).isEmpty();
                    assertThat(jdbc(context).queryForObject("SELECT count(*) FROM flyway_schema_history", Long.class))
                            .isEqualTo(SchemaInstaller.migrations().size());
                });
    }

    @Test
    void liquibaseAppliesTheShippedChangeLogIncludedInTheApplications() {
        assertThat(liquibase.util.LiquibaseUtil.getBuildVersion()).isEqualTo("4.33.0");
        TestDataSources.empty(runner)
                .withPropertyValues(
                        "spring.liquibase.enabled=true",
                        "spring.liquibase.change-log=classpath:db/app-liquibase/changelog.xml")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(missingObjects(context)).isEmpty();
                    assertThat(tableExists(context, "app_order")).isTrue();
                    assertThat(jdbc(context)
                                    .queryForList(
                                            "SELECT id FROM databasechangelog WHERE author = 'postbox' ORDER BY orderexecuted",
                                            String.class))
                            .containsExactlyElementsOf(versions().stream()
                                    .map(v -> "postbox-V" + v)
                                    .toList());
                    enqueueOne(context);
                });
    }

    @Test
    void aDatabaseThatIsNotPostgreSqlFailsStartupNamingTheMinimumVersion() {
        runner.withBean(
                        "dataSource",
                        DataSource.class,
                        () -> ForeignDatabase.dataSource("H2", "2.3.232 (2024-08-11)", 2))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining(
                                    "Postbox needs PostgreSQL 12 or newer, but its DataSource is H2 2.3.232")
                            .hasMessageContaining("postbox.datasource")
                            .hasMessageContaining("postbox.enabled=false");
                });
    }

    @Test
    void anOldPostgreSqlFailsStartup() {
        runner.withBean("dataSource", DataSource.class, () -> ForeignDatabase.dataSource("PostgreSQL", "11.22", 11))
                .withPropertyValues("postbox.schema.initialize=always")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("Postbox needs PostgreSQL 12 or newer (its schema uses stored generated"
                                + " columns), but its DataSource is PostgreSQL 11.22"));
    }

    static void enqueueOne(AssertableApplicationContext context) {
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(s -> context.getBean(Outbox.class).enqueue(JobRequest.of("ping", Map.of())));
        assertThat(jdbc(context).queryForObject("SELECT count(*) FROM outbox_job WHERE kind = 'ping'", Long.class))
                .isEqualTo(1);
    }

    /** The shipped migrations' versions, in order. */
    static List<Integer> versions() {
        return SchemaInstaller.migrations().stream()
                .map(SchemaInstaller.Migration::version)
                .toList();
    }

    /** The shipped migrations as the start-up error names them: "V1, V2, …". */
    static String allVersions() {
        return versions().stream().map(v -> "V" + v).collect(java.util.stream.Collectors.joining(", "));
    }

    static List<String> missingObjects(AssertableApplicationContext context) {
        return List.copyOf(new dev.postbox.SchemaVerifier(TestDataSources.dataSourceOf(context)).missingObjects());
    }

    static JdbcTemplate jdbc(AssertableApplicationContext context) {
        return new JdbcTemplate(TestDataSources.dataSourceOf(context));
    }

    static boolean tableExists(AssertableApplicationContext context, String table) {
        return Boolean.TRUE.equals(
                jdbc(context).queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, table));
    }

    /** The fail-fast rule's account (description and action) of a failed start-up. */
    static String report(Throwable startupFailure) {
        Throwable root = startupFailure;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        assertThat(root).isInstanceOf(PostboxSchemaMissingException.class);
        PostboxSchemaMissingException missing = (PostboxSchemaMissingException) root;
        return missing.getDescription() + "\n" + missing.getAction();
    }
}
