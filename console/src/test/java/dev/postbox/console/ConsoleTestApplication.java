package dev.postbox.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The application the console tests run: Boot's auto-configuration, a fresh test database per
 * start (dropped on close), Spring Security with form login ({@link TestSecurity}) and three users:
 * {@code operator} (role POSTBOX_OPERATOR), {@code viewer} (role POSTBOX_VIEWER) and {@code stranger}
 * (neither), password {@code secret}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ConsoleTestApplication {

    @Bean(destroyMethod = "")
    DataSource dataSource(DatabaseDropper dropper) {
        return dropper.dataSource;
    }

    @Bean
    DatabaseDropper databaseDropper() {
        return new DatabaseDropper(TestDatabase.create());
    }

    /** Drops the test database when the context closes. */
    static final class DatabaseDropper implements AutoCloseable {
        final HikariDataSource dataSource;

        DatabaseDropper(HikariDataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public void close() {
            TestDatabase.drop(dataSource);
        }
    }

    /** Starts the application on a random port with these extra properties. */
    public static ConfigurableApplicationContext start(String... properties) {
        return startWith(TestSecurity.class, properties);
    }

    /** Starts the application with another security configuration (and further configuration classes). */
    public static ConfigurableApplicationContext startWith(Class<?> security, String... properties) {
        return startWith(new Class<?>[] {security}, properties);
    }

    public static ConfigurableApplicationContext startWith(Class<?>[] configurations, String... properties) {
        Class<?>[] sources = new Class<?>[configurations.length + 1];
        sources[0] = ConsoleTestApplication.class;
        System.arraycopy(configurations, 0, sources, 1, configurations.length);
        return new SpringApplicationBuilder(sources)
                .properties(
                        "server.port=0",
                        "postbox.worker.enabled=false",
                        "postbox.http.allow-list=127.0.0.1/32",
                        "postbox.http.secrets.keys.test=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                        "postbox.schedules.nightly-report.cron=0 2 * * *",
                        "postbox.schedules.nightly-report.kind=report",
                        "spring.main.banner-mode=off")
                .properties(properties)
                .run();
    }
}
