package dev.postbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.postbox.HandlerRegistration;
import dev.postbox.Postbox;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A running worker whose handler ignores the interrupt after its time limit: the overview shows this
 * application's worker with its stuck thread (and says that the other workers' are not known here),
 * and the job page shows the attempt the engine gave up as {@code timed_out} with its limit.
 */
class StuckThreadsBrowserTest {

    static final String WORKER = "console-stuck-worker";

    /** Lets the stuck handler return, so that the application can stop. */
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    private static ConfigurableApplicationContext app;
    private static Browser browser;

    @Configuration(proxyBeanMethods = false)
    static class HangingHandler {

        @Bean
        HandlerRegistration hangingHandler() {
            return HandlerRegistration.of("hang", job -> {
                        while (RELEASE.getCount() > 0) {
                            try {
                                RELEASE.await();
                            } catch (InterruptedException ignored) {
                                // Ignores the interrupt, as a handler blocked in code that swallows it would.
                            }
                        }
                    })
                    .timeLimit(Duration.ofMillis(300));
        }
    }

    @BeforeAll
    static void start() throws Exception {
        app = ConsoleTestApplication.startWith(
                new Class<?>[] {TestSecurity.class, HangingHandler.class},
                "postbox.worker.enabled=true",
                "postbox.worker.id=" + WORKER,
                "postbox.worker.concurrency=2",
                "postbox.worker.stuck-thread-limit=3",
                "postbox.console.refresh-interval=0");
        new JdbcTemplate(app.getBean(DataSource.class))
                .update("INSERT INTO outbox_job (id, queue, kind, payload, max_attempts) VALUES (6501, 'default',"
                        + " 'hang', '{}', 1)");
        Postbox postbox = app.getBean(Postbox.class);
        await().atMost(Duration.ofSeconds(60)).until(() -> postbox.stuckThreads() == 1);
        browser = Browser.open("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
        browser.login("viewer");
    }

    @AfterAll
    static void stop() throws Exception {
        RELEASE.countDown();
        if (browser != null) {
            browser.close();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void theOverviewShowsThisWorkersStuckThreadsAndSaysTheOthersAreNotKnownHere() {
        browser.get("/postbox");
        WebElement row = browser.all("main tr").stream()
                .filter(r -> r.getText().contains(WORKER))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row for this application's worker"));
        assertThat(row.findElement(By.cssSelector("td.stuck")).getText()).isEqualTo("1 of 3");
        assertThat(browser.find("#local-stuck-threads").getText()).isEqualTo("1 stuck, 3 tolerated");
        assertThat(browser.find("#stuck-threads-note").getText())
                .contains(WORKER, "every other worker reports its own in its health");
    }

    @Test
    void theJobPageShowsTheAttemptGivenUpForItsTimeLimit() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            browser.get("/postbox/jobs/6501");
            assertThat(browser.all(".timeline tbody tr"))
                    .extracting(WebElement::getText)
                    .anySatisfy(row -> assertThat(row).contains("timed_out", "past its limit of 300 ms", WORKER));
        });
        assertThat(browser.find("#job-time-limit").getText())
                .as("the limit is the kind's, not the job's own")
                .startsWith("none of its own");
    }
}
