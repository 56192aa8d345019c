package dev.postbox.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.util.function.Supplier;
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
        return with(runner, TestDatabase::create);
    }

    /** A runner whose context has a {@code DataSource} bean on a fresh, empty database. */
    static ApplicationContextRunner empty(ApplicationContextRunner runner) {
        return with(runner, TestDatabase::createEmpty);
    }

    private static ApplicationContextRunner with(ApplicationContextRunner runner, Supplier<HikariDataSource> create) {
        HikariDataSource ds = create.get();
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
