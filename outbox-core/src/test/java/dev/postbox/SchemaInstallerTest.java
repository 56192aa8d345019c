package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

class SchemaInstallerTest {

    @Test
    void concurrentInstallersApplyEachMigrationOnceAndAgainIsANoOp() throws Exception {
        HikariDataSource ds = TestDatabase.createEmpty();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CyclicBarrier start = new CyclicBarrier(4);
            List<Future<List<Integer>>> runs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Callable<List<Integer>> install = () -> {
                    start.await();
                    return new SchemaInstaller(ds).install();
                };
                runs.add(pool.submit(install));
            }
            List<Integer> applied = new ArrayList<>();
            for (Future<List<Integer>> run : runs) {
                applied.addAll(run.get());
            }

            List<Integer> versions = SchemaInstaller.migrations().stream()
                    .map(SchemaInstaller.Migration::version)
                    .toList();
            assertThat(applied).containsExactlyInAnyOrderElementsOf(versions);
            assertThat(new SchemaInstaller(ds).install()).isEmpty();
            assertThat(new JdbcTemplate(ds)
                            .queryForList("SELECT version FROM outbox_schema_version ORDER BY version", Integer.class))
                    .containsExactlyElementsOf(versions);
        } finally {
            pool.shutdownNow();
            TestDatabase.drop(ds);
        }
    }

    @Test
    void migrationsAreFlywayCompatibleAndFreeOfFlywayPlaceholders() throws Exception {
        List<SchemaInstaller.Migration> migrations = SchemaInstaller.migrations();

        assertThat(migrations).isNotEmpty();
        for (int i = 0; i < migrations.size(); i++) {
            SchemaInstaller.Migration m = migrations.get(i);
            assertThat(m.version()).as("versions are 1, 2, 3, ...").isEqualTo(i + 1);
            assertThat(m.resource().getFilename()).matches("V\\d+__[a-z0-9_]+\\.sql");
            try (InputStream in = m.resource().getInputStream()) {
                String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(sql)
                        .as(m.resource().getFilename() + " must not contain a Flyway placeholder")
                        .doesNotContain("${");
            }
        }
    }
}
