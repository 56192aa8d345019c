package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.SchemaVerifier;
import dev.postbox.spring.internal.EmbeddedDatabases;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * A Testcontainers PostgreSQL connected with {@code @ServiceConnection} gets Postbox's schema with
 * the default {@code postbox.schema.initialize=embedded}, as an embedded database does: the test
 * recipe of docs/schema.md needs no schema setup. Docker is not available here, so the container is
 * a stand-in that "runs" the test server's database; the rest is Spring Boot's real path
 * (ServiceConnection, its JdbcConnectionDetails, the DataSource built from them).
 */
class ServiceConnectionSchemaTest {

    /** A PostgreSQL container that is already running: the test server's fresh database. */
    static final class RunningPostgres extends PostgreSQLContainer {
        private final String jdbcUrl;

        RunningPostgres(String jdbcUrl) {
            super("postgres:17");
            this.jdbcUrl = jdbcUrl;
        }

        @Override
        public void start() {}

        @Override
        public void stop() {}

        @Override
        public boolean isRunning() {
            return true;
        }

        @Override
        public String getJdbcUrl() {
            return jdbcUrl;
        }

        @Override
        public String getUsername() {
            return null; // in the URL
        }

        @Override
        public String getPassword() {
            return null;
        }
    }

    static HikariDataSource database;

    @Configuration(proxyBeanMethods = false)
    static class Containers {
        @Bean
        @ServiceConnection
        RunningPostgres postgres() {
            return new RunningPostgres(database.getJdbcUrl());
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ServiceConnectionAutoConfiguration.class,
                    BootAutoConfigurations.DATA_SOURCE,
                    BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                    BootAutoConfigurations.TRANSACTION,
                    PostboxAutoConfiguration.class))
            .withUserConfiguration(Containers.class)
            .withPropertyValues("postbox.worker.enabled=false");

    @Test
    void aServiceConnectionDatabaseGetsTheSchemaWithoutSetup() {
        database = TestDatabase.createEmpty();
        try {
            runner.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BootAutoConfigurations.JDBC_CONNECTION_DETAILS)
                                .getClass()
                                .getName())
                        .as("Boot's connection details from the container")
                        .contains("ContainerConnectionDetails");
                assertThat(new SchemaVerifier(database).missingObjects()).isEmpty();
            });
        } finally {
            TestDatabase.drop(database);
        }
    }

    @Test
    void theSameDatabaseWithoutTheServiceConnectionIsNotTouched() {
        database = TestDatabase.createEmpty();
        try {
            Assumptions.assumeFalse(
                    EmbeddedDatabases.isEmbedded(database),
                    "zonky's embedded server (no POSTBOX_TEST_JDBC_URL) is embedded anyway: nothing to tell apart");
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            BootAutoConfigurations.DATA_SOURCE,
                            BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
                            PostboxAutoConfiguration.class))
                    .withPropertyValues(
                            "postbox.worker.enabled=false", "spring.datasource.url=" + database.getJdbcUrl())
                    .run(context -> {
                        assertThat(context).hasFailed();
                        assertThat(context.getStartupFailure())
                                .rootCause()
                                .isInstanceOf(PostboxSchemaMissingException.class);
                    });
            assertThat(new SchemaVerifier(database).missingObjects()).contains("outbox_job");
        } finally {
            TestDatabase.drop(database);
        }
    }
}
