package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.internal.ArchivePartitions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 items 13 and 14: partition DDL never makes completions wait behind a long read of the
 * archive, and maintenance only ever sees and touches its own schema's archive.
 */
class ArchiveMaintenanceTest extends DatabaseTest {

    private static String partition(LocalDate day) {
        return "outbox_job_archive_p" + day.format(DateTimeFormatter.BASIC_ISO_DATE);
    }

    private LocalDate today() {
        return jdbc.queryForObject("SELECT (now() AT TIME ZONE 'UTC')::date", LocalDate.class);
    }

    @Test
    void behindALongReadOfTheArchiveMaintenanceGivesUpQuicklyAndCompletionsCommit() throws Exception {
        Postbox postbox =
                track(Postbox.builder(dataSource).handler("work", job -> {}).build());
        LocalDate tomorrow = today().plusDays(1);
        jdbc.execute("DROP TABLE " + partition(tomorrow)); // maintenance has a partition to create
        long id = enqueueCommitted(postbox.outbox(), JobRequest.of("work", Map.of()))
                .jobId();
        try (Connection reader = dataSource.getConnection()) {
            reader.setAutoCommit(false);
            try (Statement s = reader.createStatement()) {
                // A long read of the archive, as pg_dump holds it.
                s.execute("LOCK TABLE outbox_job_archive IN ACCESS SHARE MODE");
            }
            long started = System.nanoTime();
            CompletableFuture<List<String>> maintenance = CompletableFuture.supplyAsync(() -> {
                try {
                    return new ArchivePartitions(dataSource, 3, Duration.ofDays(30)).maintain();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // The DDL is waiting for its lock behind the reader.
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> count("SELECT count(*) FROM pg_locks WHERE NOT granted"
                                    + " AND relation = 'outbox_job_archive'::regclass")
                            > 0);
            CompletableFuture<Integer> completion = CompletableFuture.supplyAsync(postbox::runDueJobs);
            assertThat(completion.get(3, TimeUnit.SECONDS)).isOne();
            assertThat(count("SELECT count(*) FROM outbox_job_archive WHERE id = ? AND state = 'done'", id))
                    .isOne();
            assertThat(maintenance.get(5, TimeUnit.SECONDS)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
            assertThat(count("SELECT count(*) FROM pg_class WHERE relname = ?", partition(tomorrow)))
                    .as("postponed, not created behind the read")
                    .isZero();
            reader.rollback();
        }
        // The next run, with the archive free, catches up.
        new ArchivePartitions(dataSource, 3, Duration.ofDays(30)).maintain();
        assertThat(count("SELECT count(*) FROM pg_class WHERE relname = ?", partition(tomorrow)))
                .isOne();
    }

    @Test
    void aSecondInstallationInAnotherSchemaIsNeitherConfusedNorDamaged() throws Exception {
        LocalDate today = today();
        LocalDate old = today.minusDays(40);
        jdbc.execute("CREATE TABLE " + partition(old) + " PARTITION OF outbox_job_archive FOR VALUES FROM ('" + old
                + " 00:00:00+00') TO ('" + old.plusDays(1) + " 00:00:00+00')");
        jdbc.execute("CREATE SCHEMA tenant_b");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(dataSource.getJdbcUrl() + (dataSource.getJdbcUrl().contains("?") ? "&" : "?")
                + "currentSchema=tenant_b");
        config.setUsername(dataSource.getUsername());
        config.setPassword(dataSource.getPassword());
        config.setMaximumPoolSize(2);
        try (HikariDataSource second = new HikariDataSource(config)) {
            new SchemaInstaller(second).install();
            // tenant_b got its own partitions, although public has tables of the same names.
            for (int ahead = 0; ahead <= PostboxConfig.DEFAULT_PARTITIONS_AHEAD; ahead++) {
                assertThat(count(
                                "SELECT count(*) FROM pg_tables WHERE schemaname = 'tenant_b' AND tablename = ?",
                                partition(today.plusDays(ahead))))
                        .as("tenant_b partition %s days ahead", ahead)
                        .isOne();
            }
            // tenant_b's retention does not drop public's expired partition: only its own.
            assertThat(new ArchivePartitions(second, 3, Duration.ofDays(7)).maintain())
                    .isEmpty();
            assertThat(count(
                            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = ?",
                            partition(old)))
                    .isOne();
            // public's own maintenance drops it, schema-qualified, and leaves tenant_b's tables alone.
            assertThat(new ArchivePartitions(dataSource, 3, Duration.ofDays(7)).maintain())
                    .containsExactly(partition(old));
            assertThat(count("SELECT count(*) FROM pg_tables WHERE schemaname = 'tenant_b'"
                            + " AND tablename LIKE 'outbox_job_archive_p%'"))
                    .isEqualTo(PostboxConfig.DEFAULT_PARTITIONS_AHEAD + 1);
        } finally {
            jdbc.execute("DROP SCHEMA tenant_b CASCADE");
        }
    }
}
