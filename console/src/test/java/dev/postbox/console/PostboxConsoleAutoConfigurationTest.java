package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.PostboxSchema;
import dev.postbox.SchemaInstaller;
import dev.postbox.console.internal.ConsoleAccess;
import dev.postbox.console.internal.ConsoleDatabase;
import dev.postbox.console.internal.OverviewController;
import dev.postbox.console.internal.ServletConsoleAccess;
import dev.postbox.console.internal.SpringSecurityConsoleAccess;
import dev.postbox.console.internal.WebhooksController;
import dev.postbox.console.internal.WorkerStore;
import dev.postbox.spring.PostboxAutoConfiguration;
import dev.postbox.spring.http.PostboxHttpAutoConfiguration;
import dev.postbox.spring.schedule.PostboxScheduleAutoConfiguration;
import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** When the console is mounted, with which access rules, and when the webhook pages exist. */
@ExtendWith(OutputCaptureExtension.class)
class PostboxConsoleAutoConfigurationTest {

    private static HikariDataSource dataSource;

    private static final AutoConfigurations CONFIGS = AutoConfigurations.of(
            PostboxAutoConfiguration.class,
            PostboxScheduleAutoConfiguration.class,
            PostboxHttpAutoConfiguration.class,
            PostboxConsoleAutoConfiguration.class);

    @BeforeAll
    static void database() {
        dataSource = TestDatabase.create();
    }

    @AfterAll
    static void drop() {
        TestDatabase.drop(dataSource);
    }

    private static WebApplicationContextRunner web() {
        return new WebApplicationContextRunner()
                .withConfiguration(CONFIGS)
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues("postbox.worker.enabled=false", "postbox.scheduler.enabled=false");
    }

    @Test
    void aServletApplicationGetsTheConsoleWithWebhookPagesAndSpringSecurityAccess() {
        web().run(context -> {
            assertThat(context).hasSingleBean(OverviewController.class);
            assertThat(context).hasSingleBean(WebhooksController.class);
            assertThat(context.getBean(ConsoleAccess.class)).isInstanceOf(SpringSecurityConsoleAccess.class);
            PostboxConsoleProperties p = context.getBean(PostboxConsoleProperties.class);
            assertThat(p.isWriteEnabled()).isFalse();
            assertThat(p.isShowPayloads()).isFalse();
            assertThat(p.getPath()).isEqualTo(PostboxConsoleProperties.DEFAULT_PATH);
        });
    }

    @Test
    void theConsoleReadsPostboxsTablesInTheSchemaNamedByPostboxSchemaName() {
        new SchemaInstaller(PostboxSchema.named("billing").dataSource(dataSource)).install();
        new JdbcTemplate(dataSource).update("INSERT INTO billing.outbox_worker (id) VALUES ('billing-worker')");
        web().withPropertyValues("postbox.schema.name=billing").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(workers(context)).extracting(WorkerStore.Worker::id).containsExactly("billing-worker");
        });
        web().run(context -> assertThat(workers(context))
                .as("the search_path's installation (public) has no worker")
                .isEmpty());
    }

    private static List<WorkerStore.Worker> workers(ApplicationContext context) {
        return new WorkerStore(context.getBean(ConsoleDatabase.class)).workers(Duration.ofHours(1));
    }

    @Test
    void withoutDeliveryHttpThereAreNoWebhookPages() {
        web().withClassLoader(new FilteredClassLoader("dev.postbox.http")).run(context -> {
            assertThat(context).hasSingleBean(OverviewController.class);
            assertThat(context).doesNotHaveBean(WebhooksController.class);
        });
    }

    @Test
    void withoutSpringSecurityNobodyIsAuthenticated() {
        web().withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context ->
                        assertThat(context.getBean(ConsoleAccess.class)).isInstanceOf(ServletConsoleAccess.class));
    }

    @Test
    void notInANonWebApplicationNorWhenSwitchedOff() {
        new ApplicationContextRunner()
                .withConfiguration(CONFIGS)
                .withBean("dataSource", DataSource.class, () -> dataSource, d -> d.setDestroyMethodName(""))
                .withPropertyValues("postbox.worker.enabled=false", "postbox.scheduler.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(OverviewController.class));
        web().withPropertyValues("postbox.console.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(OverviewController.class));
    }

    @Test
    void allowAnonymousIsAWarningAtStartUp(CapturedOutput output) {
        web().run(context -> assertThat(output).doesNotContain("allow-anonymous"));
        web().withPropertyValues("postbox.console.allow-anonymous=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).containsOnlyOnce("postbox.console.allow-anonymous=true: anyone");
        });
    }

    @Test
    void aBadPathIsRefusedWithTheFix() {
        web().withPropertyValues("postbox.console.path=postbox/")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("postbox.console.path must start with '/'"));
    }
}
