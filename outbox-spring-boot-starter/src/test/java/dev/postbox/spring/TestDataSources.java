package dev.postbox.spring;

import dev.postbox.testing.TestDatabase;
import javax.sql.DataSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Context runners on a fresh test database per call. */
final class TestDataSources {

    private TestDataSources() {}

    /** A runner whose context has a {@code DataSource} bean on a fresh database with the schema. */
    static ApplicationContextRunner withSchema(ApplicationContextRunner runner) {
        DataSource ds = TestDatabase.create();
        return runner.withBean("dataSource", DataSource.class, () -> ds);
    }

    /** A runner whose context has a {@code DataSource} bean on a fresh, empty database. */
    static ApplicationContextRunner empty(ApplicationContextRunner runner) {
        DataSource ds = TestDatabase.createEmpty();
        return runner.withBean("dataSource", DataSource.class, () -> ds);
    }
}
