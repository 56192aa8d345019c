package dev.postbox.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The application the console tests run: Boot's auto-configuration, a fresh test database per
 * start (dropped on close), Spring Security with form login and two users: {@code operator} (role
 * POSTBOX_OPERATOR) and {@code viewer} (no role), password {@code secret}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(TestSecurity.class)
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
        return new SpringApplicationBuilder(ConsoleTestApplication.class)
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
