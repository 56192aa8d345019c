package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
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
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

class SchemaInstallerTest {

    @Test
    void concurrentInstallersApplyEachMigrationOnceAndAgainIsANoOp() throws Exception {
        HikariDataSource ds = TestDatabase.createEmpty();
        try {
            installConcurrently(ds, 4);
        } finally {
            TestDatabase.drop(ds);
        }
    }

    /**
     * A pool whose connections default to REPEATABLE READ (a Hikari or application setting) takes
     * the transaction's snapshot at its first statement: if that statement were the lock wait, the
     * installers waiting behind the first one would not see its migrations and would apply them
     * again. The installer must serialise first installs whatever the pool's isolation level.
     */
    @Test
    void concurrentInstallersOnARepeatableReadPoolApplyEachMigrationOnce() throws Exception {
        HikariDataSource empty = TestDatabase.createEmpty();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(empty.getJdbcUrl());
        config.setMaximumPoolSize(8);
        config.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        try (HikariDataSource repeatableRead = new HikariDataSource(config)) {
            for (int round = 0; round < 3; round++) {
                installConcurrently(repeatableRead, 8);
                new JdbcTemplate(repeatableRead)
                        .execute(
                                "DROP SCHEMA public CASCADE; CREATE SCHEMA public; GRANT ALL ON SCHEMA public TO public");
            }
        } finally {
            TestDatabase.drop(empty);
        }
    }

    private static void installConcurrently(DataSource ds, int installers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(installers);
        try {
            CyclicBarrier start = new CyclicBarrier(installers);
            List<Future<List<Integer>>> runs = new ArrayList<>();
            for (int i = 0; i < installers; i++) {
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
