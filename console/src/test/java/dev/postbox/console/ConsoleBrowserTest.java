package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The console in a real browser, with write actions enabled and Spring Security in front: every
 * page opens (and is photographed), a job is found by its key, a group of dead letters is replayed
 * with the button and a purge needs its confirmation (both checked in the database), forged and
 * role-less POSTs are refused.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.start("postbox.console.write-enabled=true", "postbox.console.refresh-interval=0");
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

    private static long count(String sql, Object... args) {
        return jdbc.queryForObject(sql, Long.class, args);
    }

    @Test
    @Order(1)
    void everyPageOpensWithItsData() throws Exception {
        browser.get("/postbox");
        assertThat(browser.text()).contains("Overview", "QUEUES AND LANES", "default", "mail", "worker-a", "LAST HOUR");
        assertThat(browser.find("[data-tile=pending]").getText()).isEqualTo("16");
        assertThat(browser.all(".chart rect.done")).hasSizeGreaterThan(30);
        assertThat(browser.text()).contains("read-write", "operator");
        browser.screenshot("overview");

        browser.get("/postbox/jobs?window=24h");
        assertThat(browser.all("#job-results tbody tr")).hasSizeGreaterThan(20);
        browser.screenshot("jobs");

        browser.get("/postbox/jobs/4711");
        assertThat(browser.text()).contains("orders.placed", "order-4711", "worker-a", "501", "502", "HTTP 503");
        assertThat(browser.all("#payload-hidden")).hasSize(1);
        assertThat(browser.text()).doesNotContain("4711}").doesNotContain("ann@example.com");
        browser.screenshot("job");

        browser.get("/postbox/dead-letters");
        assertThat(browser.all("#groups tbody tr[data-group]")).hasSize(3);
        assertThat(browser.text()).contains("order # not found", "HTTP # from erp", "SMTP # mailbox unavailable");
        browser.screenshot("dead-letters");

        browser.get("/postbox/webhooks");
        assertThat(browser.find("tr[data-endpoint=orders]").getText()).contains("enabled", "10/s");
        assertThat(browser.source()).doesNotContain(ConsoleFixtures.QUERY_SECRET);
        browser.screenshot("webhooks");

        browser.get("/postbox/webhooks/orders");
        assertThat(browser.text()).contains("HTTP 503 Service Unavailable", "order.placed", "burst 20");
        assertThat(browser.text()).contains("http://127.0.0.1:8080/hooks/orders?[redacted]");
        assertThat(browser.source()).doesNotContain(ConsoleFixtures.QUERY_SECRET);
        browser.screenshot("webhook");

        browser.get("/postbox/schedules");
        assertThat(browser.find("tr[data-schedule=nightly-report]").getText()).contains("0 2 * * *", "active", "done");
        browser.screenshot("schedules");

        browser.get("/postbox/queues");
        assertThat(browser.all("#queues tr[data-queue]")).hasSize(2);
        browser.screenshot("queues");
    }

    @Test
    @Order(2)
    void findsAJobByItsIdempotencyKey() {
        browser.get("/postbox/jobs");
        browser.find("#job-search input[name=key]").sendKeys("order-4711");
        browser.clickAndLoad(browser.find("#job-search button[type=submit]"));

        List<WebElement> rows = browser.all("#job-results tbody tr");
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getText()).contains("4711", "done", "orders.placed", "order-4711");
        browser.clickAndLoad(rows.get(0).findElement(org.openqa.selenium.By.linkText("4711")));
        assertThat(browser.driver.getCurrentUrl()).endsWith("/postbox/jobs/4711");
    }

    @Test
    @Order(2)
    void aSearchWindowOverSevenDaysIsRefusedNamingTheCap() {
        browser.get("/postbox/jobs?from=2020-01-01T00:00&to=2026-01-01T00:00");
        assertThat(browser.text()).contains("A job search reads at most 7 days", "narrow 'from' and 'to'");
        assertThat(browser.all("#job-results")).isEmpty();

        browser.get("/postbox/jobs?key=order-4711&from=2020-01-01T00:00&to=2026-12-31T00:00");
        assertThat(browser.all("#job-results tbody tr"))
                .as("a key needs no window")
                .hasSize(1);
        browser.get("/postbox/jobs?window=7d");
        assertThat(browser.all("#job-results tbody tr")).hasSizeGreaterThan(20);
    }

    @Test
    @Order(3)
    void replaysAGroupOfDeadLettersWithTheButton() throws Exception {
        browser.get("/postbox/dead-letters");
        WebElement group = browser.find("tr[data-group='erp.sync|order # not found']");
        browser.clickAndLoad(group.findElement(org.openqa.selenium.By.cssSelector("[data-action=replay-group]")));

        assertThat(browser.find("#confirm-count").getText())
                .isEqualTo(ConsoleFixtures.ORDER_NOT_FOUND + " dead letters");
        browser.screenshot("dead-letters-confirm");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE id BETWEEN 9001 AND 9005"))
                .as("nothing changes before the confirmation")
                .isEqualTo(ConsoleFixtures.ORDER_NOT_FOUND);

        browser.clickAndLoad(browser.find("#confirm"));

        assertThat(browser.text()).contains("5 replayed");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE id BETWEEN 9001 AND 9005"))
                .isZero();
        assertThat(count("SELECT count(*) FROM outbox_job WHERE id BETWEEN 9001 AND 9005 AND state = 'pending'"
                        + " AND attempts = 0 AND kind = 'erp.sync'"))
                .isEqualTo(ConsoleFixtures.ORDER_NOT_FOUND);
        assertThat(count("SELECT count(*) FROM outbox_dead_letter"))
                .as("the other groups stay")
                .isEqualTo(ConsoleFixtures.HTTP_503 + ConsoleFixtures.MAIL);
    }

    @Test
    @Order(4)
    void purgeNeedsItsConfirmation() throws Exception {
        browser.get("/postbox/dead-letters");
        browser.clickAndLoad(
                browser.find("tr[data-group='mail.send|SMTP # mailbox unavailable'] [data-action=purge-group]"));
        assertThat(browser.find("#confirm-count").getText()).isEqualTo(ConsoleFixtures.MAIL + " dead letters");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE kind = 'mail.send'"))
                .isEqualTo(2);

        // The purge itself, sent without the confirmation's fields (with valid tokens), is refused.
        String springToken = browser.fetchText("/test/csrf");
        browser.get("/postbox/dead-letters");
        String ownToken = browser.find("#selection input[name=_postbox_csrf]").getAttribute("value");
        Map<String, Object> unconfirmed = browser.post(
                "/postbox/dead-letters/purge",
                Map.of("kind", "mail.send", "fingerprint", "SMTP # mailbox unavailable", "_postbox_csrf", ownToken),
                Map.of("X-CSRF-TOKEN", springToken));
        assertThat(unconfirmed.get("status")).isEqualTo(400L);
        assertThat((String) unconfirmed.get("body")).contains("needs its confirmation");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE kind = 'mail.send'"))
                .isEqualTo(2);

        browser.clickAndLoad(
                browser.find("tr[data-group='mail.send|SMTP # mailbox unavailable'] [data-action=purge-group]"));
        browser.clickAndLoad(browser.find("#confirm"));
        assertThat(browser.text()).contains("2 purged");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE kind = 'mail.send'"))
                .isZero();
        assertThat(count("SELECT count(*) FROM outbox_job WHERE kind = 'mail.send' AND id > 9000"))
                .isZero();
    }

    @Test
    @Order(5)
    void aForgedPostIsRefusedEvenWithSpringSecuritysToken() {
        browser.get("/postbox/queues");
        String springToken = browser.fetchText("/test/csrf");

        Map<String, Object> noToken = browser.post("/postbox/queues/default/pause", Map.of(), Map.of());
        Map<String, Object> onlySpringToken =
                browser.post("/postbox/queues/default/pause", Map.of(), Map.of("X-CSRF-TOKEN", springToken));
        Map<String, Object> wrongOwnToken = browser.post(
                "/postbox/queues/default/pause",
                Map.of("_postbox_csrf", "forged"),
                Map.of("X-CSRF-TOKEN", springToken));

        assertThat(noToken.get("status")).isEqualTo(403L);
        assertThat(onlySpringToken.get("status")).isEqualTo(403L);
        assertThat((String) onlySpringToken.get("body")).contains("CSRF token is missing or stale");
        assertThat(wrongOwnToken.get("status")).isEqualTo(403L);
        assertThat(count("SELECT count(*) FROM outbox_queue WHERE paused")).isZero();

        browser.clickAndLoad(browser.find("tr[data-queue=default] [data-action=toggle]"));
        assertThat(browser.text()).contains("Pause queue default: claiming stopped.");
        assertThat(count("SELECT count(*) FROM outbox_queue WHERE name = 'default' AND paused"))
                .isOne();
    }

    @Test
    @Order(6)
    void aUserWithoutTheRoleSeesNoWriteButtonAndIsRefused() {
        browser.logout();
        browser.login("viewer");
        browser.get("/postbox/dead-letters");
        assertThat(browser.text()).contains("read-only", "viewer");
        assertThat(browser.all("button[data-action], #replay-selected, #purge-matching"))
                .isEmpty();

        String springToken = browser.fetchText("/test/csrf");
        Map<String, Object> replay = browser.post(
                "/postbox/dead-letters/replay",
                Map.of("kind", "erp.sync", "until", "2999-01-01T00:00:00Z", "confirmed", "3"),
                Map.of("X-CSRF-TOKEN", springToken));
        assertThat(replay.get("status")).isEqualTo(403L);
        assertThat((String) replay.get("body")).contains("need the role POSTBOX_OPERATOR");
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE kind = 'erp.sync'"))
                .isEqualTo(ConsoleFixtures.HTTP_503);
        browser.logout();
        browser.login("operator");
    }
}
