package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.util.UriUtils;

/**
 * The job model on the console: a job's tags, its own time limit, its result (escaped, shown with
 * the payloads) and its timed-out attempts with their limit on the job page; the search by tags on
 * the jobs page (every tenant, or the tenant filter's), its validation, and tag values that mean
 * something in a URL or in HTML; the tenant of every dead letter in the list.
 */
class JobModelBrowserTest {

    /** Tag values with each character that means something in a URL or in HTML (all valid tag values). */
    static final List<String> HOSTILE = List.of(
            "a&tag=customer=42",
            "x#top",
            "100%2e%2e",
            "sp ace+plus",
            "it's \"q\"",
            "<script>window.pwned=1</script>",
            "../../dead-letters/purge?confirmed=1&until=2999-01-01T00:00",
            "k=v=w",
            "one,two");

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.start(
                "postbox.console.show-payloads=true",
                "postbox.console.write-enabled=true",
                "postbox.console.refresh-interval=0");
        jdbc = ConsoleFixtures.fill(app);
        fillJobModel(jdbc);
        browser = Browser.open("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
        browser.login("operator");
    }

    /** Jobs with tags, a time limit, a result and a timed-out attempt, in three tenants. */
    static void fillJobModel(JdbcTemplate jdbc) {
        jdbc.update("INSERT INTO outbox_job_archive (id, queue, kind, tenant, payload, priority, state, attempts,"
                + " max_attempts, created_at, finished_at, tags, result) VALUES (6001, 'default', 'invoice', 'acme',"
                + " '{}', 0, 'done', 1, 8, now() - interval '5 minutes', now() - interval '4 minutes',"
                + " ARRAY['customer=42', 'request=abc'],"
                + " '{\"invoice\": \"INV-77\", \"note\": \"<script>window.pwned=1</script>\"}'::jsonb)");
        jdbc.update("INSERT INTO outbox_job (id, queue, kind, tenant, payload, attempts, tags, time_limit_ms)"
                + " VALUES (6002, 'default', 'invoice', 'acme', '{}', 1, ARRAY['customer=42'], 30000)");
        jdbc.update("INSERT INTO outbox_attempt (job_id, attempt, worker, lease_token, started_at, finished_at,"
                + " outcome, error, duration_ms, detail) VALUES (6002, 1, 'worker-a', 900, now() - interval '2 minutes',"
                + " now() - interval '90 seconds', 'timed_out', 'gave up after its time limit of 30000 ms', 30000,"
                + " '{\"timeLimitMs\": 30000}'::jsonb)");
        jdbc.update(
                "INSERT INTO outbox_dead_letter (id, queue, kind, tenant, payload, priority, attempts, max_attempts,"
                        + " last_error, created_at, dead_at, tags, time_limit_ms) VALUES (6003, 'default', 'invoice', 'globex',"
                        + " '{}', 0, 8, 8, 'boom', now() - interval '1 hour', now() - interval '30 seconds',"
                        + " ARRAY['customer=42'], 5000)");
        jdbc.update("INSERT INTO outbox_job (id, queue, kind, payload, tags) VALUES (6004, 'default', 'invoice', '{}',"
                + " ARRAY['customer=42'])");
        jdbc.update("INSERT INTO outbox_job (id, queue, kind, tenant, payload, tags) VALUES (6005, 'default',"
                + " 'invoice', 'acme', '{}', ARRAY['customer=43'])");
        for (int i = 0; i < HOSTILE.size(); i++) {
            jdbc.update(
                    "INSERT INTO outbox_job (id, queue, kind, payload, tags) VALUES (?, 'default', 'invoice', '{}',"
                            + " ARRAY[?])",
                    6100 + i,
                    "ref=" + HOSTILE.get(i));
        }
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

    private static List<String> taggedIds() {
        return browser.all("#tagged-results tbody tr td.num a").stream()
                .map(WebElement::getText)
                .toList();
    }

    private static String query(String... pairs) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) {
            parts.add(pairs[i] + "=" + UriUtils.encodeQueryParam(pairs[i + 1], StandardCharsets.UTF_8));
        }
        return "/postbox/jobs?" + String.join("&", parts);
    }

    /** The query of a resolved URL as its decoded parameters, each name with its values. */
    private static Map<String, List<String>> parameters(URI uri) {
        Map<String, List<String>> parameters = new TreeMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int split = pair.indexOf('=');
            parameters
                    .computeIfAbsent(
                            UriUtils.decode(pair.substring(0, split), StandardCharsets.UTF_8), k -> new ArrayList<>())
                    .add(UriUtils.decode(pair.substring(split + 1), StandardCharsets.UTF_8));
        }
        return parameters;
    }

    @Test
    void theJobPageShowsTagsTheOwnTimeLimitTheResultEscapedAndTimedOutAttemptsWithTheirLimit() {
        browser.get("/postbox/jobs/6001");
        assertThat(browser.all("#job-tags a.tag"))
                .extracting(WebElement::getText)
                .containsExactly("customer=42", "request=abc");
        assertThat(browser.find("#job-result").getText())
                .as("the result as JSON, its markup as text")
                .contains("\"invoice\": \"INV-77\"", "<script>window.pwned=1</script>");
        assertThat(((JavascriptExecutor) browser.driver).executeScript("return window.pwned === undefined"))
                .isEqualTo(true);
        assertThat(browser.find("#job-time-limit").getText()).isEqualTo("not kept in the archive");

        browser.get("/postbox/jobs/6002");
        assertThat(browser.find("#job-time-limit").getText()).isEqualTo("30.0 s per attempt (its own)");
        assertThat(browser.find("#job-no-result").getText()).contains("only a done job has a result");
        WebElement timedOut = browser.find(".timeline tbody tr");
        assertThat(timedOut.getText()).contains("timed_out", "past its limit of 30.0 s");

        browser.get("/postbox/jobs/6003");
        assertThat(browser.find("#job-time-limit").getText()).isEqualTo("5.0 s per attempt (its own)");
        browser.get("/postbox/jobs/6004");
        assertThat(browser.find("#job-time-limit").getText()).startsWith("none of its own");
    }

    @Test
    void aResultIsHiddenWithThePayloadsUnlessShowPayloadsIsOn() throws Exception {
        ConfigurableApplicationContext closed = ConsoleTestApplication.start("postbox.console.refresh-interval=0");
        try (Browser other =
                Browser.open("http://127.0.0.1:" + closed.getEnvironment().getProperty("local.server.port"))) {
            fillJobModel(new JdbcTemplate(closed.getBean(javax.sql.DataSource.class)));
            other.login("viewer");
            other.get("/postbox/jobs/6001");
            assertThat(other.find("#job-result-hidden").getText()).contains("has a result");
            assertThat(other.all("#job-result")).isEmpty();
            assertThat(other.source()).doesNotContain("INV-77");
            assertThat(other.all("#job-tags a.tag"))
                    .as("tags are shown: they are search keys")
                    .hasSize(2);
        } finally {
            closed.close();
        }
    }

    @Test
    void tagSearchFindsLiveArchivedAndDeadJobsOfEveryTenantOrOfTheFilteredOne() {
        browser.get(query("tag", "customer=42"));
        assertThat(taggedIds()).containsExactly("6004", "6003", "6002", "6001");
        assertThat(browser.all("#tagged-results tbody tr td.tenant"))
                .extracting(WebElement::getText)
                .containsExactly("(default)", "globex", "acme", "acme");

        browser.get(query("tag", "customer=42", "tenant", "acme"));
        assertThat(taggedIds()).containsExactly("6002", "6001");
        browser.get(query("tag", "customer=42", "tenant", "(default)"));
        assertThat(taggedIds()).containsExactly("6004");
        browser.get(query("tag", "customer=42", "tag", "request=abc", "tenant", "acme"));
        assertThat(taggedIds()).as("every tag").containsExactly("6001");

        // Typed into the form: one field per tag, a new empty one after each search.
        browser.get("/postbox/jobs");
        browser.find("#tag-input").sendKeys("customer=42");
        browser.find("#job-search [name=tenant]").sendKeys("globex");
        browser.clickAndLoad(browser.find("#job-search button[type=submit]"));
        assertThat(taggedIds()).containsExactly("6003");
        browser.find("#tag-input").sendKeys("request=abc");
        browser.find("#job-search [name=tenant]").clear();
        browser.clickAndLoad(browser.find("#job-search button[type=submit]"));
        assertThat(taggedIds()).containsExactly("6001");
    }

    @Test
    void aTagSearchWithABadTagOrAnotherFieldIsRefusedWithAMessageNamingTheFix() {
        browser.get(query("tag", "customer"));
        assertThat(browser.text()).contains("A tag to search by is key=value (e.g. customer=42), was 'customer'");
        browser.get(query("tag", "cust omer=42"));
        assertThat(browser.text()).contains("tag key 'cust omer' must be 1 to");
        browser.get(query("tag", "customer=42", "tag", "customer=43"));
        assertThat(browser.text()).contains("The tag 'customer' is given twice");
        browser.get(query("tag", "customer=42", "kind", "invoice"));
        assertThat(browser.text()).contains("A tag search takes the tags and the tenant only", "clear kind");
        browser.get(query("tag", "customer=42", "tenant", "a b"));
        assertThat(browser.text()).contains("tenant 'a b' is not a valid tenant id");
        assertThat(taggedIds()).isEmpty();
    }

    @Test
    void hostileTagValuesTravelAsOneQueryValueAndFindTheirJobOnly() {
        for (int i = 0; i < HOSTILE.size(); i++) {
            String tag = "ref=" + HOSTILE.get(i);
            String id = String.valueOf(6100 + i);

            browser.get("/postbox/jobs/" + id);
            WebElement link = browser.find("#job-tags a.tag");
            assertThat(link.getText()).isEqualTo(tag);
            URI href = URI.create(link.getDomProperty("href"));
            assertThat(href.getRawPath()).isEqualTo("/postbox/jobs");
            assertThat(href.getRawFragment()).as(tag).isNull();
            assertThat(parameters(href)).as(tag).isEqualTo(Map.of("tag", List.of(tag), "tenant", List.of("(default)")));
            browser.clickAndLoad(link);
            assertThat(taggedIds()).as(tag).containsExactly(id);
            assertThat(browser.find("#job-search [name=tag]").getDomProperty("value"))
                    .isEqualTo(tag);

            browser.get("/postbox/jobs");
            browser.find("#tag-input").sendKeys(tag);
            browser.clickAndLoad(browser.find("#job-search button[type=submit]"));
            assertThat(taggedIds()).as("typed: " + tag).containsExactly(id);
            assertThat(browser.all("#tagged-results td.tags a.tag"))
                    .extracting(WebElement::getText)
                    .containsExactly(tag);
        }
        assertThat(((JavascriptExecutor) browser.driver).executeScript("return window.pwned === undefined"))
                .isEqualTo(true);
    }

    @Test
    void everyDeadLetterShowsItsTenant() {
        browser.get("/postbox/dead-letters?kind=invoice");
        List<WebElement> rows = browser.all("#letters tbody tr");
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getText()).contains("6003");
        assertThat(browser.find("#letters tbody tr td.tenant").getText()).isEqualTo("globex");

        browser.get("/postbox/dead-letters?kind=erp.sync");
        assertThat(browser.all("#letters tbody tr td.tenant"))
                .extracting(WebElement::getText)
                .isNotEmpty()
                .containsOnly("(default)");
    }
}
