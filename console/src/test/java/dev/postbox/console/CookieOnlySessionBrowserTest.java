package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The console tracks its session by cookie only: even in an application that allows the
 * container's URL rewriting, the page that starts the session has no {@code ;jsessionid=} in any
 * link, form or script URL, and neither has a write's redirect.
 */
class CookieOnlySessionBrowserTest {

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.startWith(
                ProxyAuthSecurity.class, "postbox.console.write-enabled=true", "postbox.console.refresh-interval=0");
        jdbc = ConsoleFixtures.fill(app);
        browser = Browser.open("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
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
    void noLinkCarriesTheSessionId() {
        browser.get("/postbox/queues");
        assertThat(browser.driver.manage().getCookieNamed("JSESSIONID"))
                .as("this page started the session")
                .isNotNull();
        assertThat(browser.all("a[href], form[action], link[href], script[src]"))
                .hasSizeGreaterThan(10)
                .allSatisfy(e -> assertThat(e.getDomAttribute(e.getTagName().equals("form") ? "action" : attribute(e)))
                        .doesNotContainIgnoringCase("jsessionid"));
        assertThat(browser.source()).doesNotContainIgnoringCase("jsessionid");

        browser.clickAndLoad(browser.find("tr[data-queue=default] [data-action=toggle]"));
        assertThat(browser.text()).contains("Pause queue default: claiming stopped.");
        assertThat(browser.driver.getCurrentUrl()).doesNotContainIgnoringCase("jsessionid");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_queue WHERE paused", Long.class))
                .isOne();
    }

    private static String attribute(WebElement e) {
        return e.getTagName().equals("script") ? "src" : "href";
    }
}
