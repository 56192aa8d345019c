package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.HandlerRegistration;
import dev.postbox.JobRequest;
import dev.postbox.JsonCodec;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.SchemaInstaller;
import dev.postbox.spring.internal.PostboxDatabase;
import dev.postbox.spring.test.PostboxTestHelper;
import dev.postbox.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 13: {@code postbox.schema.name} puts every Postbox table, sequence, function and partition in
 * that schema, whoever applies the migrations, and Postbox uses them there whatever the
 * application's {@code search_path} (here a schema that does not exist); a bad name stops start-up
 * naming the property.
 */
class PostboxSchemaNameTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                    BootAutoConfigurations.TRANSACTION,
                    BootAutoConfigurations.FLYWAY,
                    BootAutoConfigurations.LIQUIBASE,
                    PostboxAutoConfiguration.class))
            .withBean(HandlerRegistration.class, () -> HandlerRegistration.of("ping", job -> {}))
            .withPropertyValues(
                    "postbox.worker.enabled=false", "spring.flyway.enabled=false", "spring.liquibase.enabled=false");

    /** Runs the runner on a fresh database whose connections' search_path is {@code searchPath}. */
    private void onDatabase(
            String searchPath, Consumer<JdbcTemplate> before, ApplicationContextRunner app, Consumer<Ctx> check) {
        HikariDataSource database = TestDatabase.createEmpty();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.getJdbcUrl() + (database.getJdbcUrl().contains("?") ? "&" : "?") + "currentSchema="
                + searchPath);
        config.setMaximumPoolSize(10);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            JdbcTemplate sql = new JdbcTemplate(ds);
            before.accept(sql);
            app.withBean("dataSource", DataSource.class, () -> ds, d -> d.setDestroyMethodName(""))
                    .run(context -> check.accept(new Ctx(context, sql)));
        } finally {
            TestDatabase.drop(database);
        }
    }

    private record Ctx(AssertableApplicationContext context, JdbcTemplate sql) {
        long count(String query) {
            Long n = sql.queryForObject(query, Long.class);
            return n == null ? 0 : n;
        }

        /** Enqueues one job in a transaction of the application and runs it; checks it is done in billing. */
        void enqueueAndRunInBilling() {
            PostboxTestHelper helper = new PostboxTestHelper(
                    context.getBean(Postbox.class),
                    context.getBean(PostboxDatabase.class).dataSource(),
                    context.getBean(JsonCodec.class));
            new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(s -> {
                context.getBean(Outbox.class).enqueue(JobRequest.of("ping", Map.of()));
                // In the application's transaction, on its connection as it is: the helper finds the job.
                helper.assertEnqueued("ping");
            });
            assertThat(count("SELECT count(*) FROM billing.outbox_job")).isOne();
            assertThat(context.getBean(Postbox.class).runDueJobs()).isOne();
            assertThat(count("SELECT count(*) FROM billing.outbox_job_archive WHERE state = 'done'"))
                    .isOne();
        }

        /** Postbox's relations outside schema billing. */
        long outsideBilling() {
            return count("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname <> 'billing' AND (c.relname LIKE 'outbox%' OR c.relname LIKE 'postbox%')");
        }
    }

    private static List<Integer> versions() {
        return PostboxSchemaTest.versions();
    }

    @Test
    void postboxsInstallerCreatesTheSchemaAndEverythingInItAndTheEngineWorksThere() {
        onDatabase(
                "nowhere",
                sql -> {},
                runner.withPropertyValues("postbox.schema.name=billing", "postbox.schema.initialize=always"),
                ctx -> {
                    assertThat(ctx.context()).hasNotFailed();
                    assertThat(ctx.sql()
                                    .queryForList(
                                            "SELECT version FROM billing.outbox_schema_version ORDER BY version",
                                            Integer.class))
                            .containsExactlyElementsOf(versions());
                    assertThat(ctx.count("SELECT count(*) FROM pg_tables WHERE schemaname = 'billing'"
                                    + " AND tablename LIKE 'outbox_job_archive_p%'"))
                            .as("archive partitions in billing")
                            .isPositive();
                    assertThat(ctx.outsideBilling()).isZero();
                    ctx.enqueueAndRunInBilling();
                });
    }

    @Test
    void flywayAppliesThemInTheSchemaWithPostboxsHistoryThereAndTheApplicationsOwnElsewhere() {
        onDatabase(
                "public",
                sql -> {},
                runner.withPropertyValues(
                        "spring.flyway.enabled=true",
                        "spring.flyway.locations=classpath:db/app-flyway",
                        "postbox.schema.name=billing",
                        "postbox.schema.initialize=always"),
                ctx -> {
                    assertThat(ctx.context()).hasNotFailed();
                    assertThat(ctx.sql()
                                    .queryForList(
                                            "SELECT version FROM billing.postbox_schema_history WHERE success"
                                                    + " AND version IS NOT NULL ORDER BY installed_rank",
                                            String.class))
                            .containsExactlyElementsOf(
                                    versions().stream().map(String::valueOf).toList());
                    assertThat(ctx.count("SELECT count(*) FROM public.flyway_schema_history WHERE success"))
                            .as("the application's own history and tables stay where its Flyway put them")
                            .isEqualTo(2);
                    assertThat(ctx.count("SELECT count(*) FROM public.app_order"))
                            .isZero();
                    assertThat(ctx.count("SELECT count(*) FROM pg_tables WHERE schemaname = 'billing'"
                                    + " AND tablename = 'outbox_schema_version'"))
                            .as("not Postbox's installer")
                            .isZero();
                    assertThat(ctx.outsideBilling()).isZero();
                    ctx.enqueueAndRunInBilling();
                });
    }

    @Test
    void liquibaseWithTheSchemaAsItsDefaultAppliesTheShippedChangeLogThere() {
        onDatabase(
                "nowhere",
                sql -> sql.execute("CREATE SCHEMA billing"),
                runner.withPropertyValues(
                        "spring.liquibase.enabled=true",
                        "spring.liquibase.change-log=classpath:" + SchemaInstaller.LIQUIBASE_CHANGELOG,
                        "spring.liquibase.default-schema=billing",
                        "postbox.schema.name=billing",
                        "postbox.schema.initialize=never"),
                ctx -> {
                    assertThat(ctx.context()).hasNotFailed();
                    assertThat(ctx.count("SELECT count(*) FROM billing.databasechangelog WHERE author = 'postbox'"))
                            .isEqualTo(versions().size());
                    assertThat(ctx.outsideBilling()).isZero();
                    ctx.enqueueAndRunInBilling();
                });
    }

    @Test
    void tablesMissingFromTheSchemaFailStartUpNamingIt() {
        onDatabase(
                "public",
                sql -> new SchemaInstaller(sql.getDataSource()).install(), // in public, not in billing
                runner.withPropertyValues("postbox.schema.name=billing", "postbox.schema.initialize=never"),
                ctx -> assertThat(PostboxSchemaTest.report(ctx.context().getStartupFailure()))
                        .contains("Postbox's tables are missing from its database (schema billing,"
                                + " postbox.schema.name; a Liquibase or Flyway of your own must run Postbox's files"
                                + " with billing as its default schema): migrations "
                                + PostboxSchemaTest.allVersions()));
    }

    @Test
    void aBadSchemaNameStopsStartUpNamingThePropertyAndTheRule() {
        runner.withBean("dataSource", DataSource.class, SimpleDriverDataSource::new)
                .withPropertyValues("postbox.schema.name=Billing")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("postbox.schema.name: schema name \"Billing\" is not usable")
                            .hasMessageContaining("write it in lower case: \"billing\"")
                            .hasMessageContaining("remove the property to use the connections' search_path");
                });
    }
}
