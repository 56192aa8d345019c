package dev.postbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** Runs the demo's load mode as CI does: a small N on a fresh database, and checks its summary. */
class LoadModeTest {

    @Test
    void loadModePlacesOrdersAndEverythingAddsUp() {
        String url;
        try (HikariDataSource database = TestDatabase.createEmpty()) {
            url = database.getJdbcUrl();
        }
        try (ConfigurableApplicationContext context = SpringApplication.run(
                WebhookDemoApplication.class,
                "--demo.orders=50",
                "--demo.timeout=60s",
                "--server.port=0",
                "--spring.datasource.url=" + url,
                "--postbox.schema.initialize=always")) {
            LoadMode loadMode = context.getBean(LoadMode.class);
            DemoSummary summary = loadMode.summary();

            assertThat(summary.problems()).isEmpty();
            assertThat(summary.orders()).isEqualTo(50);
            assertThat(summary.reserved()).isEqualTo(50);
            assertThat(summary.delivered()).isEqualTo(50);
            assertThat(summary.duplicates()).isZero();
            assertThat(summary.dead()).isEqualTo(5);
            assertThat(summary.retried()).isPositive();
            assertThat(summary.redelivered()).isPositive();
            assertThat(summary.unfinished()).isZero();
            assertThat(loadMode.exitCode()).isZero();
        }
    }
}
