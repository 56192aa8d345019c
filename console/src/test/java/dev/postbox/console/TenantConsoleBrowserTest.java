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
 * The console's tenant view: every job shows its tenant (list and page), and the tenant filter
 * limits job search (lookups by id included), the dead-letter groups, list and counts, and a group's
 * replay to that tenant's rows: another tenant's dead letter with the same kind and error stays.
 */
class TenantConsoleBrowserTest {

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.start("postbox.console.write-enabled=true", "postbox.console.refresh-interval=0");
        jdbc = ConsoleFixtures.fill(app);
        String archived = "INSERT INTO outbox_job_archive (id, queue, kind, tenant, payload, priority, state, attempts,"
                + " max_attempts, created_at, finished_at) VALUES (?, 'default', 't.report', ?, '{}', 0, 'done', 1, 8,"
                + " now() - interval '5 minutes', now() - interval '4 minutes')";
        jdbc.update(archived, 8001, "acme");
        jdbc.update(archived, 8002, "globex");
        jdbc.update("INSERT INTO outbox_job (id, queue, kind, tenant, payload) VALUES (8003, 'default', 't.report',"
                + " 'acme', '{}')");
        String dead = "INSERT INTO outbox_dead_letter (id, queue, kind, tenant, payload, priority, attempts,"
                + " max_attempts, last_error, created_at, dead_at) VALUES (?, 'default', 't.sync', ?, '{}', 0, 8, 8,"
                + " ?, now() - interval '1 hour', now() - interval '1 minute')";
        jdbc.update(dead, 8101, "acme", "java.lang.IllegalStateException: ledger 17 locked");
        jdbc.update(dead, 8102, "globex", "java.lang.IllegalStateException: ledger 99 locked");
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

    private static List<String> resultIds() {
        return browser.all("#job-results tbody tr td.num a").stream()
                .map(WebElement::getText)
                .toList();
    }

    @Test
    void everyJobShowsItsTenantAndTheFilterScopesTheSearch() {
        browser.get("/postbox/jobs?window=24h");
        assertThat(resultIds()).contains("8001", "8002", "8003", "4711");
        assertThat(browser.all("#job-results tbody tr td.tenant"))
                .extracting(WebElement::getText)
                .contains("acme", "globex", "(default)");

        browser.get("/postbox/jobs?window=24h&tenant=acme");
        assertThat(resultIds()).contains("8001", "8003").doesNotContain("8002", "4711");
        assertThat(browser.all("#job-results tbody tr td.tenant"))
                .extracting(WebElement::getText)
                .containsOnly("acme");

        browser.get("/postbox/jobs?id=8002&tenant=acme");
        assertThat(resultIds()).as("another tenant's job, even by id").isEmpty();
        browser.get("/postbox/jobs?id=8002&tenant=globex");
        assertThat(resultIds()).containsExactly("8002");

        browser.get("/postbox/jobs/8002");
        assertThat(browser.find("#job-tenant").getText()).isEqualTo("globex");
        browser.get("/postbox/jobs/4711");
        assertThat(browser.find("#job-tenant").getText()).isEqualTo("(default)");

        browser.get("/postbox/jobs?window=24h&tenant=(default)");
        assertThat(resultIds()).contains("4711").doesNotContain("8001", "8002", "8003");
    }

    @Test
    void theTenantFilterScopesDeadLetterGroupsListsAndReplays() {
        browser.get("/postbox/dead-letters?tenant=acme");
        List<WebElement> groups = browser.all("#groups tr[data-group]");
        assertThat(groups).hasSize(1);
        assertThat(groups.get(0).getDomAttribute("data-group"))
                .isEqualTo("t.sync|java.lang.IllegalStateException: ledger # locked");
        assertThat(groups.get(0).findElement(By.cssSelector("td.num strong")).getText())
                .isEqualTo("1");
        assertThat(browser.all("#letters tbody tr td.num a"))
                .extracting(WebElement::getText)
                .containsExactly("8101");

        browser.clickAndLoad(groups.get(0).findElement(By.cssSelector("[data-action=replay-group]")));
        assertThat(browser.find("#confirm-count").getText()).isEqualTo("1 dead letters");
        browser.clickAndLoad(browser.find("#confirm"));
        assertThat(browser.text()).contains("1 replayed", "tenant acme");

        assertThat(jdbc.queryForList("SELECT id FROM outbox_dead_letter WHERE kind = 't.sync'", Long.class))
                .as("globex's dead letter with the same kind and error stays")
                .containsExactly(8102L);
        assertThat(jdbc.queryForObject("SELECT tenant FROM outbox_job WHERE id = 8101", String.class))
                .isEqualTo("acme");
    }
}
