package dev.postbox.spring.workeronly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 11: a Spring Boot application without a web server whose only job is to run Postbox jobs
 * keeps running (before the fix it exited about 0.5 s after start, every Postbox thread being a
 * daemon thread), runs jobs, and stops gracefully on SIGTERM. The application runs in a child JVM,
 * so that what keeps it alive (or not) is the real JVM rule.
 */
class WorkerOnlyApplicationTest {

    @Test
    void aWorkerOnlyApplicationStaysUp() throws Exception {
        HikariDataSource db = TestDatabase.create();
        Process child = null;
        Path log = Files.createTempFile("worker-only", ".log");
        try {
            Postbox producer = Postbox.builder(db).build();
            long id = new TransactionTemplate(new DataSourceTransactionManager(db))
                    .execute(s -> producer.outbox().enqueue(JobRequest.of("ping", Map.of())))
                    .jobId();

            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            child = new ProcessBuilder(List.of(
                            java,
                            "-Xmx256m",
                            "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
                            "-cp",
                            System.getProperty("java.class.path"),
                            WorkerOnlyApplication.class.getName(),
                            "--spring.datasource.url=" + db.getJdbcUrl(),
                            // Flyway and Liquibase are on the test classpath (for the schema tests), not in this app
                            "--spring.flyway.enabled=false",
                            "--spring.liquibase.enabled=false",
                            "--postbox.worker.id=worker-only",
                            "--postbox.worker.shutdown-grace=5s"))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            Process app = child;

            await().atMost(Duration.ofSeconds(90)).until(() -> output(log).contains("MAIN RETURNED") || !app.isAlive());
            assertThat(output(log)).as("the application started").contains("Postbox worker worker-only started");
            await().atMost(Duration.ofSeconds(30)).until(() -> output(log).contains("HANDLED job " + id));

            // main() has returned: only the worker's non-daemon thread keeps the JVM up.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(app::isAlive);

            app.destroy(); // SIGTERM
            assertThat(app.waitFor(30, TimeUnit.SECONDS))
                    .as("exits after SIGTERM")
                    .isTrue();
            assertThat(output(log))
                    .as("stopped gracefully by the context's shutdown hook")
                    .contains("Postbox worker worker-only stopped");
            assertThat(app.exitValue())
                    .as("the exit status of a JVM ended by SIGTERM")
                    .isEqualTo(143);
        } finally {
            if (child != null && child.isAlive()) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            TestDatabase.drop(db);
            System.out.println("worker-only application output:\n" + output(log));
            Files.deleteIfExists(log);
        }
    }

    private static String output(Path log) throws java.io.IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}
