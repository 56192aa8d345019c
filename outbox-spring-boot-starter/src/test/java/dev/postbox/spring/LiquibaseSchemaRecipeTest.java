package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.SchemaInstaller;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 35: the recipe of docs/schema.md, "Liquibase in a schema", as it is written there (its
 * properties and its master change log, read from the page), through Spring Boot's Liquibase
 * auto-configuration on a fresh PostgreSQL database where Postbox's schema does not exist yet:
 * Postbox's change sets land in its schema, the application's in its own, Liquibase's history in
 * {@code public}, and Postbox starts on it.
 */
class LiquibaseSchemaRecipeTest {

    private final BootApplications apps = new BootApplications();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class LiquibaseApplication {}

    @AfterEach
    void drop() {
        apps.close();
    }

    @Test
    void theDocumentedRecipeRunsOnAFreshDatabaseThroughBootsLiquibase() throws Exception {
        String section = section(docs("schema.md"), "### Liquibase in a schema");
        List<String> properties = new ArrayList<>(block(section, "properties")
                .lines()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .toList());
        Path changeLog =
                Path.of(getClass().getResource("/").toURI()).resolve("liquibase-recipe/db.changelog-master.xml");
        Files.createDirectories(changeLog.getParent());
        Files.writeString(changeLog, block(section, "xml"), StandardCharsets.UTF_8);
        properties.add("spring.liquibase.enabled=true");
        properties.add("spring.liquibase.change-log=classpath:liquibase-recipe/db.changelog-master.xml");
        properties.add("postbox.schema.initialize=never"); // Liquibase alone applies the migrations
        properties.add("postbox.worker.enabled=false");
        JdbcTemplate sql = new JdbcTemplate(apps.database());
        assertThat(sql.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = 'postbox'", Integer.class))
                .as("the schema is absent at start")
                .isZero();

        apps.start(LiquibaseApplication.class, properties.toArray(String[]::new));

        assertThat(sql.queryForObject(
                        "SELECT count(*) FROM public.databasechangelog WHERE author = 'postbox'", Integer.class))
                .isEqualTo(SchemaInstaller.migrations().size());
        assertThat(tables(sql, "postbox")).contains("outbox_job", "outbox_dead_letter");
        assertThat(tables(sql, "public"))
                .as("the application's change set in its schema, nothing of Postbox's there")
                .contains("app_order", "databasechangelog")
                .doesNotContain("outbox_job");
    }

    private static List<String> tables(JdbcTemplate sql, String schema) {
        return sql.queryForList(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", String.class, schema);
    }

    /** A page of docs/, found from the module's directory. */
    static String docs(String page) throws Exception {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path file = dir.resolve("docs").resolve(page);
            if (Files.isRegularFile(file)) {
                return Files.readString(file, StandardCharsets.UTF_8);
            }
        }
        throw new IllegalStateException(
                "docs/" + page + " not found above " + Path.of("").toAbsolutePath());
    }

    /** From {@code heading} to the next heading of the same or a higher level. */
    static String section(String page, String heading) {
        int start = page.indexOf(heading + "\n");
        assertThat(start).as("%s in the page", heading).isNotNegative();
        Matcher next = Pattern.compile("\n#{1," + heading.indexOf(' ') + "} ").matcher(page);
        return next.find(start + heading.length()) ? page.substring(start, next.start()) : page.substring(start);
    }

    /** The first fenced block of {@code language} in {@code text}. */
    static String block(String text, String language) {
        Matcher block =
                Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(text);
        assertThat(block.find()).as("a %s block", language).isTrue();
        return block.group(1);
    }
}
