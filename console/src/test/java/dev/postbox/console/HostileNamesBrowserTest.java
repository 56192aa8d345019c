package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.util.UriUtils;

/**
 * Names that could change where a URL points, in every templated path and query of the console:
 * queues (pause, resume and cap buttons, the overview's dead-letter link), dead-letter kinds (the
 * group link) and job endpoints (the job page's webhook link). Enqueue and the admin refuse such
 * queue names now, so the rows are written with SQL, as rows from before the rule would be. Each
 * button posts to its own queue's URL and nothing else happens: no dead letter is purged, no queue
 * paused.
 */
class HostileNamesBrowserTest {

    /** The example, and names with each character that means something in a URL. */
    static final List<String> HOSTILE = List.of(
            "x/../../dead-letters/purge?confirmed=1&until=2999-01-01T00:00&",
            "a/b",
            "q?x=1",
            "q#top",
            "100%2e%2e",
            "it's",
            "say \"hi\"",
            "sp ace&amp;");

    private static ConfigurableApplicationContext app;
    private static JdbcTemplate jdbc;
    private static Browser browser;
    private static long deadLetters;

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.start("postbox.console.write-enabled=true", "postbox.console.refresh-interval=0");
        jdbc = ConsoleFixtures.fill(app);
        for (int i = 0; i < HOSTILE.size(); i++) {
            String name = HOSTILE.get(i);
            jdbc.update(
                    "INSERT INTO outbox_job (id, queue, kind, payload) VALUES (?, ?, 'work', '{}')", 7000 + i, name);
            jdbc.update(
                    "INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                            + " last_error, created_at, dead_at) VALUES (?, ?, ?, '{}', 0, 1, 1, 'boom', now(), now())",
                    7100 + i,
                    name,
                    name);
            jdbc.update(
                    "INSERT INTO outbox_job_archive (id, queue, kind, endpoint, payload, priority, state, attempts,"
                            + " max_attempts, created_at, finished_at) VALUES (?, 'default', 'work', ?, '{}', 0,"
                            + " 'done', 1, 1, now(), now())",
                    7200 + i,
                    name);
        }
        deadLetters = count("SELECT count(*) FROM outbox_dead_letter");
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

    private static long count(String sql) {
        return jdbc.queryForObject(sql, Long.class);
    }

    /** The URL the browser resolved from an element's attribute (a form's action, a link's href). */
    private static URI resolved(WebElement element, String property) {
        return URI.create(element.getDomProperty(property));
    }

    /** The one path segment between prefix and suffix, decoded; fails when the path has another shape. */
    private static String segment(URI uri, String prefix, String suffix) {
        String path = uri.getRawPath();
        assertThat(path).as(uri.toString()).startsWith(prefix).endsWith(suffix);
        String raw = path.substring(prefix.length(), path.length() - suffix.length());
        assertThat(raw).as("one encoded segment in " + uri).doesNotContain("/");
        assertThat(uri.getRawQuery()).as(uri.toString()).isNull();
        assertThat(uri.getRawFragment()).as(uri.toString()).isNull();
        return UriUtils.decode(raw, StandardCharsets.UTF_8);
    }

    private static WebElement queueRow(String name) {
        browser.get("/postbox/queues");
        return browser.all("#queues tr[data-queue]").stream()
                .filter(r -> name.equals(r.getDomAttribute("data-queue")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row for queue " + name));
    }

    @Test
    void everyQueueButtonPostsToItsOwnQueueAndNothingElseHappens() {
        for (String name : HOSTILE) {
            WebElement row = queueRow(name);
            List<WebElement> forms = row.findElements(By.cssSelector("form"));
            assertThat(forms).as(name).hasSize(2);
            assertThat(segment(resolved(forms.get(0), "action"), "/postbox/queues/", "/pause"))
                    .isEqualTo(name);
            assertThat(segment(resolved(forms.get(1), "action"), "/postbox/queues/", "/cap"))
                    .isEqualTo(name);

            URI pause = resolved(forms.get(0), "action");
            browser.clickAndLoad(row.findElement(By.cssSelector("[data-action=toggle]")));
            assertThat(browser.driver.getCurrentUrl())
                    .as("where the button posted")
                    .isEqualTo(pause.toString());
            assertThat(count("SELECT count(*) FROM outbox_dead_letter"))
                    .as(name)
                    .isEqualTo(deadLetters);
            assertThat(count("SELECT count(*) FROM outbox_queue WHERE paused"))
                    .as(name)
                    .isZero();
        }
        // A name the rule allows still works from the same page.
        browser.clickAndLoad(queueRow("mail").findElement(By.cssSelector("[data-action=toggle]")));
        assertThat(browser.text()).contains("Pause queue mail: claiming stopped.");
    }

    @Test
    void aQueueNameTheAdminRefusesGetsAnErrorNamingTheQueueAndTheAllowedSet() {
        browser.clickAndLoad(queueRow("it's").findElement(By.cssSelector("[data-action=toggle]")));
        assertThat(browser.text()).contains("queue 'it's' is not a valid queue name", "letters, digits");
    }

    @Test
    void linksCarryHostileNamesAsOneSegmentOrOneQueryValue() {
        for (int i = 0; i < HOSTILE.size(); i++) {
            String name = HOSTILE.get(i);

            browser.get("/postbox/jobs/" + (7200 + i));
            WebElement endpoint = browser.find("a[href*='/webhooks/']");
            assertThat(segment(resolved(endpoint, "href"), "/postbox/webhooks/", ""))
                    .isEqualTo(name);

            browser.get("/postbox");
            WebElement dead = browser.all("a[href*='dead-letters?']").stream()
                    .filter(a -> name.equals(a.findElement(By.xpath("ancestor::tr"))
                            .findElement(By.tagName("strong"))
                            .getText()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no dead-letter link for queue " + name));
            browser.clickAndLoad(dead);
            assertThat(browser.find("#dead-letter-filter [name=queue]").getDomProperty("value"))
                    .isEqualTo(name);

            browser.get("/postbox/dead-letters");
            WebElement group = browser.all("#groups tr[data-group]").stream()
                    .filter(r -> r.getDomAttribute("data-group").equals(name + "|boom"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no group of kind " + name))
                    .findElement(By.cssSelector("td.error a"));
            browser.clickAndLoad(group);
            assertThat(browser.find("#dead-letter-filter [name=kind]").getDomProperty("value"))
                    .isEqualTo(name);
        }
        assertThat(count("SELECT count(*) FROM outbox_dead_letter")).isEqualTo(deadLetters);
    }
}
