package dev.postbox.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import javax.sql.DataSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Context runners on a fresh test database per call. The database is dropped (and its pool closed)
 * when the context closes, so that test classes do not exhaust the server's connections.
 */
final class TestDataSources {

    private TestDataSources() {}

    /** A runner whose context has a {@code DataSource} bean on a fresh database with the schema. */
    static ApplicationContextRunner withSchema(ApplicationContextRunner runner) {
        return on(runner, TestDatabase.create());
    }

    /** A runner whose context has a {@code DataSource} bean on a fresh, empty database. */
    static ApplicationContextRunner empty(ApplicationContextRunner runner) {
        return on(runner, TestDatabase.createEmpty());
    }

    /** The {@code dataSource} bean of a context made by these runners (before or after refresh). */
    static DataSource dataSourceOf(org.springframework.context.ApplicationContext context) {
        return context.getBean("dataSource", DataSource.class);
    }

    /** A runner whose context has the given test database as its {@code DataSource}, dropped at close. */
    static ApplicationContextRunner on(ApplicationContextRunner runner, HikariDataSource ds) {
        return runner.withBean("testDatabaseDropper", DatabaseDropper.class, () -> new DatabaseDropper(ds))
                .withBean("dataSource", DataSource.class, () -> ds, definition -> definition.setDestroyMethodName(""));
    }

    /** Drops the test database when the context closes (registered first, so destroyed last). */
    static final class DatabaseDropper implements AutoCloseable {
        private final HikariDataSource dataSource;

        DatabaseDropper(HikariDataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public void close() {
            TestDatabase.drop(dataSource);
        }
    }
}
