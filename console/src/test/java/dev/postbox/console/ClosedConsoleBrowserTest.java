package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The console as an anonymous visitor sees it in a real browser, in an application whose own
 * security lets every request through: closed by default (the refusal page names the property, and
 * no job, key or error reaches the page), and with {@code postbox.console.allow-anonymous=true}
 * readable but without a single write control, even with writes enabled.
 */
class ClosedConsoleBrowserTest {

    private static final String[] PAGES = {
        "/postbox", "/postbox/queues", "/postbox/jobs?window=24h", "/postbox/jobs/4711", "/postbox/dead-letters"
    };

    @Test
    void anAnonymousVisitorIsRefusedEveryPage() throws Exception {
        try (ConfigurableApplicationContext app =
                        ConsoleTestApplication.startWith(OpenSecurity.class, "postbox.console.write-enabled=true");
                Browser browser = open(app)) {
            ConsoleFixtures.fill(app);
            for (String page : PAGES) {
                browser.get(page);
                assertThat(browser.text())
                        .as(page)
                        .contains("postbox.console.read-role")
                        .doesNotContain("order-4711");
                assertThat(browser.all("form[method=post], button")).as(page).isEmpty();
            }
        }
    }

    @Test
    void allowAnonymousShowsThePagesWithoutAnyWriteControl() throws Exception {
        try (ConfigurableApplicationContext app = ConsoleTestApplication.startWith(
                        OpenSecurity.class,
                        "postbox.console.write-enabled=true",
                        "postbox.console.allow-anonymous=true");
                Browser browser = open(app)) {
            JdbcTemplate jdbc = ConsoleFixtures.fill(app);
            browser.get("/postbox/jobs/4711");
            assertThat(browser.text()).contains("order-4711");
            browser.get("/postbox/queues");
            assertThat(browser.all("tr[data-queue=default]")).isNotEmpty();
            assertThat(browser.all("[data-action], form[method=post]"))
                    .as("no write control for an anonymous reader")
                    .isEmpty();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_queue WHERE paused", Long.class))
                    .isZero();
        }
    }

    private static Browser open(ConfigurableApplicationContext app) throws Exception {
        return Browser.open("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
    }
}
