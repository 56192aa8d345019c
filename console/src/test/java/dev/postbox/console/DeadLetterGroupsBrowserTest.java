package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Dead-letter groups bring together what failed the same way: the demo's stock errors, which differ
 * only in the SKU (a quoted literal) and the order number (any length), are one group; HTTP 500 and
 * 503 of one endpoint stay two, and replaying one of them touches only its own dead letters.
 */
class DeadLetterGroupsBrowserTest {

    private static final String STOCK = "stock.reserve";

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.start("postbox.console.write-enabled=true", "postbox.console.refresh-interval=0");
        jdbc = new JdbcTemplate(app.getBean(javax.sql.DataSource.class));
        String dead = "INSERT INTO outbox_dead_letter (id, queue, kind, endpoint, payload, priority, attempts,"
                + " max_attempts, last_error, created_at, dead_at) VALUES (?, 'default', ?, ?, '{}', 0, 8, 8, ?,"
                + " now() - interval '1 hour', now() - interval '1 minute')";
        List<String> stock = List.of(
                "java.lang.IllegalStateException: not enough 'sku-1' in stock for order 1",
                "java.lang.IllegalStateException: not enough 'sku-1' in stock for order 10",
                "java.lang.IllegalStateException: not enough 'sku-22' in stock for order 123456789012",
                "java.lang.IllegalStateException: not enough \"sku-3\" in stock for order 7\n\tat the.Stack(Trace.java:12)");
        for (int i = 0; i < stock.size(); i++) {
            jdbc.update(dead, 100 + i, STOCK, null, stock.get(i));
        }
        jdbc.update(dead, 200, "order.placed", "orders", "HTTP 503 Service Unavailable");
        jdbc.update(dead, 201, "order.placed", "orders", "HTTP 503 Service Unavailable");
        jdbc.update(dead, 202, "order.placed", "orders", "HTTP 500 Internal Server Error");
        jdbc.update(dead, 203, "order.placed", "billing", "HTTP 503 Service Unavailable");
        jdbc.update(
                dead,
                300,
                "sync",
                null,
                "java.util.NoSuchElementException: job 0b6d7c3e-29a4-4c4f-9a3c-0d1e2f3a4b5c not found");
        jdbc.update(
                dead,
                301,
                "sync",
                null,
                "java.util.NoSuchElementException: job 7f000000-0000-4000-8000-000000000042 not found");
        jdbc.update(dead, 302, "sync", null, "java.lang.IllegalArgumentException: job 42 not found");
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
    void theFingerprintMasksEveryNumberUuidAndQuotedLiteralAndKeepsTheStatusApart() {
        assertThat(jdbc.queryForList(
                        "SELECT DISTINCT error_fingerprint FROM outbox_dead_letter WHERE kind = ?",
                        String.class,
                        STOCK))
                .containsExactlyInAnyOrder(
                        "java.lang.IllegalStateException: not enough '#' in stock for order #",
                        "java.lang.IllegalStateException: not enough \"#\" in stock for order #");
        assertThat(jdbc.queryForList(
                        "SELECT error_fingerprint || ' / ' || error_status FROM outbox_dead_letter WHERE id IN (202, 203)"
                                + " ORDER BY id",
                        String.class))
                .containsExactly("HTTP # Internal Server Error / 500", "HTTP # Service Unavailable / 503");
        assertThat(jdbc.queryForList(
                        "SELECT DISTINCT error_fingerprint FROM outbox_dead_letter WHERE kind = 'sync'", String.class))
                .as("the exception type stays part of the fingerprint")
                .containsExactlyInAnyOrder(
                        "java.util.NoSuchElementException: job # not found",
                        "java.lang.IllegalArgumentException: job # not found");
    }

    @Test
    void thePageShowsOneGroupPerCauseAndReplaysOnlyTheChosenStatus() throws Exception {
        browser.get("/postbox/dead-letters");
        WebElement stock = browser.find("tr[data-group=\"" + STOCK
                + "|java.lang.IllegalStateException: not enough '#' in stock for order #\"]");
        assertThat(stock.findElement(By.cssSelector("td.num strong")).getText())
                .as("sku-1 and sku-22, orders 1, 10 and 123456789012: one group")
                .isEqualTo("3");
        List<WebElement> orders = browser.all("tr[data-group^='order.placed|']");
        assertThat(orders)
                .extracting(r -> r.getDomAttribute("data-endpoint") + " " + r.getDomAttribute("data-status"))
                .containsExactlyInAnyOrder("orders 503", "orders 500", "billing 503");
        browser.screenshot("dead-letter-groups");

        WebElement orders503 = browser.find("tr[data-group^='order.placed|'][data-endpoint=orders][data-status='503']");
        assertThat(orders503.getText()).contains("orders", "503", "HTTP # Service Unavailable", "2");
        browser.clickAndLoad(orders503.findElement(By.cssSelector("[data-action=replay-group]")));
        assertThat(browser.find("#confirm-count").getText()).isEqualTo("2 dead letters");
        browser.clickAndLoad(browser.find("#confirm"));

        assertThat(browser.text()).contains("2 replayed");
        assertThat(jdbc.queryForList(
                        "SELECT id FROM outbox_dead_letter WHERE kind = 'order.placed' ORDER BY id", Long.class))
                .as("the 500 and the other endpoint's 503 stay")
                .containsExactly(202L, 203L);
    }
}
