package dev.postbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.SchemaInstaller;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Picks the PostgreSQL server for tests (CONTRIBUTING.md, "Build and test"): {@code POSTBOX_TEST_JDBC_URL} when set
 * (CI points it at the local server), else Testcontainers ({@code postgres:17}) when Docker is
 * available, else embedded PostgreSQL 17 (zonky). Each call of {@link #create()} makes a fresh
 * database on that server with the Postbox schema installed, so test classes never share state.
 */
public final class TestDatabase {

    /** Environment variable naming a JDBC URL of a server whose user may create databases. */
    public static final String URL_VARIABLE = "POSTBOX_TEST_JDBC_URL";

    private static final Logger log = LoggerFactory.getLogger(TestDatabase.class);
    private static String adminUrl;

    private TestDatabase() {}

    /** The JDBC URL of the server's maintenance database (creates the server on first use). */
    public static synchronized String adminUrl() {
        if (adminUrl == null) {
            adminUrl = startServer();
        }
        return adminUrl;
    }

    private static String startServer() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            log.info("Test database: {} from {}", url.replaceAll("password=[^&]*", "password=***"), URL_VARIABLE);
            return url;
        }
        if (dockerAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:17");
            container.start();
            log.info("Test database: Testcontainers postgres:17");
            return container.getJdbcUrl() + "&user=" + container.getUsername() + "&password=" + container.getPassword();
        }
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException e) {
                    // the JVM is going away
                }
            }));
            log.info("Test database: embedded PostgreSQL on port {}", pg.getPort());
            return pg.getJdbcUrl("postgres", "postgres");
        } catch (IOException e) {
            throw new IllegalStateException(
                    "No PostgreSQL for tests: set " + URL_VARIABLE
                            + ", start Docker, or let embedded PostgreSQL run (it failed: " + e.getMessage() + ")",
                    e);
        }
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            return false;
        }
    }

    /** A new, empty database with the Postbox schema installed; a pool of up to 32 connections. */
    public static HikariDataSource create() {
        HikariDataSource ds = createEmpty();
        new SchemaInstaller(ds).install();
        return ds;
    }

    /** A new, empty database without the schema. */
    public static HikariDataSource createEmpty() {
        String name = "postbox_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        String admin = adminUrl();
        try (Connection c = DriverManager.getConnection(admin);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Creating test database " + name + " failed: " + e.getMessage(), e);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withDatabase(admin, name));
        config.setMaximumPoolSize(32);
        config.setMinimumIdle(2);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    /** Replaces the database name in a PostgreSQL JDBC URL. */
    public static String withDatabase(String url, String database) {
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int query = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + database + (query >= 0 ? url.substring(query) : "");
    }

    /** Drops a database made by {@link #create()} (closes the pool first). */
    public static void drop(DataSource dataSource) {
        if (!(dataSource instanceof HikariDataSource hikari)) {
            return;
        }
        String name = hikari.getPoolName();
        hikari.close();
        try (Connection c = DriverManager.getConnection(adminUrl());
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            log.warn("Dropping test database {} failed", name, e);
        }
    }
}
