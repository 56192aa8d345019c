package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Job;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.Postbox;
import dev.postbox.SchemaVerifier;
import dev.postbox.spring.internal.PostboxDatabase;
import dev.postbox.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An application with two databases picks Postbox's with a property or the {@link PostboxDataSource}
 * qualifier; Postbox's tables, jobs and transactions are then on that one only. A {@code Postbox}
 * bean of the application's own keeps the {@code @OutboxHandler} wiring when built from the
 * starter's {@code Postbox.Builder}.
 */
class PostboxDataSourcesTest {

    record Greeting(String text) {}

    static class Greeter {
        final List<String> greeted = new CopyOnWriteArrayList<>();

        @OutboxHandler(value = "greet", transactional = true)
        void greet(Greeting greeting, Job job) {
            greeted.add(greeting.text());
        }
    }

    static HikariDataSource app;
    static HikariDataSource orders;

    @BeforeEach
    void databases() {
        app = TestDatabase.createEmpty();
        orders = TestDatabase.createEmpty();
    }

    @AfterEach
    void dropDatabases() {
        TestDatabase.drop(app);
        TestDatabase.drop(orders);
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PostboxAutoConfiguration.class))
            .withBean(Greeter.class)
            .withPropertyValues("postbox.worker.enabled=false", "postbox.schema.initialize=always");

    /** Two DataSources and their transaction managers, as an application declares them; none marked. */
    private ApplicationContextRunner twoDatabases() {
        return runner.withBean("appDataSource", DataSource.class, () -> app, d -> d.setDestroyMethodName(""))
                .withBean("ordersDataSource", DataSource.class, () -> orders, d -> d.setDestroyMethodName(""))
                .withBean(
                        "appTransactionManager",
                        PlatformTransactionManager.class,
                        () -> new JdbcTransactionManager(app))
                .withBean(
                        "ordersTransactionManager",
                        PlatformTransactionManager.class,
                        () -> new JdbcTransactionManager(orders));
    }

    @Test
    void thePropertyPicksPostboxsDataSourceAndTheTransactionManagerThatManagesIt() {
        twoDatabases().withPropertyValues("postbox.datasource=ordersDataSource").run(context -> {
            assertThat(context).hasNotFailed();
            PostboxDatabase database = context.getBean(PostboxDatabase.class);
            assertThat(database.dataSource()).isSameAs(orders);
            assertThat(database.transactionManager()).isSameAs(context.getBean("ordersTransactionManager"));
            assertPostboxLivesOnOrdersOnly(context);
        });
    }

    @Test
    void theQualifierPicksPostboxsDataSource() {
        runner.withBean("appDataSource", DataSource.class, () -> app, d -> d.setDestroyMethodName(""))
                .withBean("ordersDataSource", DataSource.class, () -> orders, d -> {
                    d.setDestroyMethodName("");
                    ((AbstractBeanDefinition) d).addQualifier(new AutowireCandidateQualifier(PostboxDataSource.class));
                })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(PostboxDatabase.class).dataSource())
                            .isSameAs(orders);
                    assertThat(context.getBean(PostboxDatabase.class).transactionManager())
                            .as("no transaction manager in this context: Postbox makes its own")
                            .isNull();
                    assertPostboxLivesOnOrdersOnly(context);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class AnnotatedDatabases {
        @Bean
        @Primary
        DataSource appDataSource() {
            return app;
        }

        @Bean
        @PostboxDataSource
        DataSource ordersDataSource() {
            return orders;
        }

        @Bean
        @Primary
        PlatformTransactionManager appTransactionManager() {
            return new JdbcTransactionManager(app);
        }

        @Bean
        @PostboxDataSource
        PlatformTransactionManager ordersTransactionManager(@PostboxDataSource DataSource ds) {
            return new JdbcTransactionManager(ds);
        }
    }

    @Test
    void theQualifierOnBeanMethodsPicksDataSourceAndTransactionManagerOverPrimary() {
        runner.withUserConfiguration(AnnotatedDatabases.class).run(context -> {
            assertThat(context).hasNotFailed();
            PostboxDatabase database = context.getBean(PostboxDatabase.class);
            assertThat(database.dataSource()).isSameAs(orders);
            assertThat(database.transactionManager()).isSameAs(context.getBean("ordersTransactionManager"));
            assertPostboxLivesOnOrdersOnly(context);
        });
    }

    @Test
    void twoUnmarkedDataSourcesFailNamingBothAndTheWaysToChoose() {
        twoDatabases()
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("Postbox found 2 DataSource beans [appDataSource, ordersDataSource]")
                        .hasMessageContaining("@PostboxDataSource")
                        .hasMessageContaining("postbox.datasource=<bean name>"));
    }

    @Test
    void aPropertyNamingNoBeanFailsListingTheBeans() {
        twoDatabases()
                .withPropertyValues("postbox.datasource=order")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("postbox.datasource=order names no DataSource bean; the DataSource beans"
                                + " are [appDataSource, ordersDataSource]"));
        twoDatabases()
                .withPropertyValues(
                        "postbox.datasource=ordersDataSource", "postbox.transaction-manager=appTransactionManager")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("manages another DataSource than Postbox's"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPostbox {
        @Bean
        Postbox myPostbox(Postbox.Builder builder) {
            return builder.handler("extra", job -> {}).build();
        }
    }

    @Test
    void anApplicationPostboxBuiltFromTheStartersBuilderRunsOutboxHandlers() {
        TestDataSources.on(runner, orders)
                .withUserConfiguration(OwnPostbox.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Postbox postbox = context.getBean(Postbox.class);
                    assertThat(context.getBeanNamesForType(Postbox.class)).containsExactly("myPostbox");
                    assertThat(postbox.handlerKinds()).contains("greet", "extra");
                    new TransactionTemplate(new JdbcTransactionManager(orders))
                            .executeWithoutResult(
                                    s -> postbox.outbox().enqueue(JobRequest.of("greet", new Greeting("hello"))));
                    assertThat(postbox.runDueJobs()).isEqualTo(1);
                    assertThat(context.getBean(Greeter.class).greeted).containsExactly("hello");
                });
        orders = TestDatabase.createEmpty(); // the runner dropped it
    }

    @Configuration(proxyBeanMethods = false)
    static class HandBuiltPostbox {
        @Bean
        Postbox myPostbox(@Qualifier("dataSource") DataSource dataSource) {
            return Postbox.builder(dataSource).build();
        }
    }

    @Test
    void anApplicationPostboxBuiltByHandFailsStartupNamingTheHandlerAndTheFix() {
        TestDataSources.on(runner, orders)
                .withUserConfiguration(HandBuiltPostbox.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("@OutboxHandler(\"greet\")")
                        .hasMessageContaining("is not a handler of the Postbox bean myPostbox")
                        .hasMessageContaining("@Bean Postbox postbox(Postbox.Builder builder)"));
        orders = TestDatabase.createEmpty();
    }

    private static void assertPostboxLivesOnOrdersOnly(AssertableApplicationContext context) {
        assertThat(new SchemaVerifier(orders).missingObjects()).isEmpty();
        assertThat(new SchemaVerifier(app).missingObjects()).contains("outbox_job");
        PlatformTransactionManager tm = context.getBean(PostboxDatabase.class).transactionManager();
        new TransactionTemplate(tm != null ? tm : new JdbcTransactionManager(orders))
                .executeWithoutResult(
                        s -> context.getBean(Outbox.class).enqueue(JobRequest.of("greet", Map.of("text", "hi"))));
        assertThat(new JdbcTemplate(orders).queryForObject("SELECT count(*) FROM outbox_job", Long.class))
                .isEqualTo(1);
        assertThat(context.getBean(Postbox.class).runDueJobs()).isEqualTo(1);
        assertThat(context.getBean(Greeter.class).greeted).containsExactly("hi");
    }
}
