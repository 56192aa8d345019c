package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.HandlerRegistration;
import dev.postbox.Postbox;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Issue 35: what a new user sees on the first start of a default Spring Boot application (Boot's
 * Hikari pool of 10, real PostgreSQL). A clean start: no warning from Postbox, and one INFO line that
 * says how many handlers the worker runs in that pool and how to raise it. A database without
 * Postbox's tables: the fail-fast account once, in Spring Boot's "APPLICATION FAILED TO START", with
 * the missing objects summarised. With a schema, the line that reports the applied migrations names it.
 */
@ExtendWith(OutputCaptureExtension.class)
class FirstStartUpTest {

    private final BootApplications apps = new BootApplications();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class DefaultApplication {

        @Bean
        HandlerRegistration ping() {
            return HandlerRegistration.of("ping", job -> {});
        }
    }

    @AfterEach
    void drop() {
        apps.close();
    }

    @Test
    void aDefaultApplicationStartsWithoutAWarningAndSaysWhatConcurrencyItChose(CapturedOutput output) {
        ConfigurableApplicationContext context =
                apps.start(DefaultApplication.class, "postbox.schema.initialize=always");

        assertThat(context.getBean(Postbox.class).config().concurrency())
                .as("Hikari's 10 connections less the engine's 6")
                .isEqualTo(4);
        assertThat(postboxLines(output, "WARN")).isEmpty();
        assertThat(postboxLines(output, "INFO").stream().filter(line -> line.contains("handlers at once")))
                .singleElement()
                .asString()
                .contains("Postbox runs 4 handlers at once (postbox.worker.concurrency is not set)")
                .contains("the DataSource pool allows 10 connections")
                .contains("set spring.datasource.hikari.maximum-pool-size to at least 16")
                .contains("or set postbox.worker.concurrency");
    }

    @Test
    void aConcurrencyTheApplicationChoseIsKeptAndWarnedAbout(CapturedOutput output) {
        ConfigurableApplicationContext context = apps.start(
                DefaultApplication.class, "postbox.schema.initialize=always", "postbox.worker.concurrency=10");

        assertThat(context.getBean(Postbox.class).config().concurrency()).isEqualTo(10);
        assertThat(postboxLines(output, "WARN"))
                .singleElement()
                .asString()
                .contains("pool allows 10 connections, but the worker may hold 16 at once");
    }

    @Test
    void withASchemaTheHistoryLineNamesIt(CapturedOutput output) {
        apps.start(DefaultApplication.class, "postbox.schema.initialize=always", "postbox.schema.name=billing");

        assertThat(postboxLines(output, "INFO").stream().filter(line -> line.contains("applied migrations")))
                .singleElement()
                .asString()
                .contains("with Postbox's installer (history in billing.outbox_schema_version)");
    }

    @Test
    void missingTablesAreExplainedOnceInTheFailureAnalysis(CapturedOutput output) {
        apps.startFailure(DefaultApplication.class, "postbox.schema.initialize=never");

        String all = output.getAll();
        assertThat(occurrences(all, "Postbox's tables are missing from its database"))
                .as("the account once:\n%s", all)
                .isOne();
        assertThat(occurrences(all, "APPLICATION FAILED TO START")).isOne();
        String analysis = all.substring(all.indexOf("APPLICATION FAILED TO START"));
        assertThat(analysis)
                .contains("Description:\n\nPostbox's tables are missing from its database: migrations V1, V2,")
                .containsPattern("\\(missing: outbox_job, [a-z_, ]+ and \\d+ more objects\\)")
                .contains("postbox.schema.initialize=never leaves them to you.")
                .contains("Action:\n\nApply them in one of these ways:")
                .contains("postbox.schema.initialize=always")
                .contains("<include file=\"db/postbox/db.changelog-postbox.xml\"/>");
        assertThat(all.lines().count()).as("a short log:\n%s", all).isLessThan(40);
    }

    private static List<String> postboxLines(CapturedOutput output, String level) {
        return output.getAll()
                .lines()
                .filter(line -> line.contains(" " + level + " ") && line.contains(" d.p."))
                .toList();
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            count++;
        }
        return count;
    }
}
