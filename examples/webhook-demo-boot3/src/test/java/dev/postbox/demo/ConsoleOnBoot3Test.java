package dev.postbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The demo on Spring Boot 3.5 enables the operator console ({@code postbox-console-boot3}, with the
 * Boot 3 starter): every page is served. The console's own tests, browser tests included, run on
 * Boot 3.5 in {@code console-boot3}.
 */
class ConsoleOnBoot3Test {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void everyPageRendersOnSpringBoot35() throws Exception {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        String url;
        try (HikariDataSource database = TestDatabase.createEmpty()) {
            url = database.getJdbcUrl();
        }
        try (ConfigurableApplicationContext context = SpringApplication.run(
                WebhookDemoApplication.class,
                "--server.port=0",
                "--spring.datasource.url=" + url,
                "--postbox.schema.initialize=always")) {
            String base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + "/postbox";

            assertThat(page(base)).contains("<h1>Overview");
            assertThat(page(base + "/jobs")).contains("<h1>Jobs");
            assertThat(page(base + "/dead-letters")).contains("<h1>Dead letters");
            assertThat(page(base + "/webhooks")).contains("<h1>Webhook endpoints").contains("orders");
            assertThat(page(base + "/schedules")).contains("<h1>Schedules");
            assertThat(page(base + "/queues")).contains("<h1>Queues");
            assertThat(page(base + "/htmx/htmx.min.js")).contains("htmx");
        }
    }

    private String page(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(url).isEqualTo(200);
        return response.body();
    }
}
