package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The console as shipped: read-only. Even the operator (who has the role) sees no write button on
 * any page, and a POST that passes Spring Security is refused by the console.
 */
class ReadOnlyConsoleBrowserTest {

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.start();
        jdbc = ConsoleFixtures.fill(app);
        browser = Browser.open("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
        browser.login("operator");
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void showsNoWriteButtonAndRefusesAForgedPost() throws Exception {
        for (String page : List.of(
                "/postbox",
                "/postbox/jobs?window=24h",
                "/postbox/jobs/300",
                "/postbox/dead-letters",
                "/postbox/webhooks/orders",
                "/postbox/schedules",
                "/postbox/queues")) {
            browser.get(page);
            assertThat(browser.text()).as(page).contains("read-only").doesNotContain("Whitelabel");
            assertThat(
                            browser.all(
                                    "main form[method=post], main button[type=submit]:not(#job-search button):not(#dead-letter-filter button)"))
                    .as("write controls on " + page)
                    .isEmpty();
        }
        browser.get("/postbox/dead-letters");
        browser.screenshot("read-only-dead-letters");

        String springToken = browser.fetchText("/test/csrf");
        Map<String, Object> purge = browser.post(
                "/postbox/dead-letters/purge",
                Map.of("until", "2999-01-01T00:00:00Z", "confirmed", "10", "_postbox_csrf", "guess"),
                Map.of("X-CSRF-TOKEN", springToken));
        Map<String, Object> pause =
                browser.post("/postbox/queues/default/pause", Map.of(), Map.of("X-CSRF-TOKEN", springToken));

        assertThat(purge.get("status")).isEqualTo(403L);
        assertThat((String) purge.get("body")).contains("read-only", "postbox.console.write-enabled=true");
        assertThat(pause.get("status")).isEqualTo(403L);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_dead_letter", Long.class))
                .isEqualTo((long) ConsoleFixtures.ORDER_NOT_FOUND + ConsoleFixtures.HTTP_503 + ConsoleFixtures.MAIL);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_queue", Long.class))
                .isZero();
    }
}
