package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.internal.ArchivePartitions;
import dev.postbox.internal.AttemptLogCleaner;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retention drops whole daily partitions, exactly the expired days, and never dead letters or their history. */
class ArchiveRetentionTest extends DatabaseTest {

    @Test
    void maintenanceCreatesDaysAheadAndDropsExactlyTheExpiredDaysKeepingDeadLetters() throws Exception {
        LocalDate today = jdbc.queryForObject("SELECT (now() AT TIME ZONE 'UTC')::date", LocalDate.class);
        // Twelve days of history, one finished job per day, and an old dead letter.
        for (int back = 12; back >= 1; back--) {
            LocalDate day = today.minusDays(back);
            jdbc.execute(
                    "CREATE TABLE IF NOT EXISTS outbox_job_archive_p" + day.format(DateTimeFormatter.BASIC_ISO_DATE)
                            + " PARTITION OF outbox_job_archive FOR VALUES FROM ('" + day + " 00:00:00+00') TO ('"
                            + day.plusDays(1) + " 00:00:00+00')");
            jdbc.update(
                    "INSERT INTO outbox_job_archive (id, queue, kind, payload, priority, state, attempts,"
                            + " max_attempts, created_at, finished_at) VALUES (?, 'default', 'k', '{}', 0, 'done', 1, 8,"
                            + " ?::date + time '12:00', ?::date + time '12:00')",
                    back,
                    day.toString(),
                    day.toString());
        }
        jdbc.update("INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                + " last_error, created_at, dead_at) VALUES (100, 'default', 'k', '{}', 0, 8, 8, 'boom',"
                + " now() - interval '30 days', now() - interval '30 days')");

        List<String> dropped = new ArchivePartitions(dataSource, 3, Duration.ofDays(7)).maintain();

        // Retention 7 days keeps today-7 .. today; today-12 .. today-8 go.
        assertThat(dropped)
                .containsExactlyInAnyOrder(
                        partition(today.minusDays(12)),
                        partition(today.minusDays(11)),
                        partition(today.minusDays(10)),
                        partition(today.minusDays(9)),
                        partition(today.minusDays(8)));
        assertThat(jdbc.queryForList("SELECT id FROM outbox_job_archive ORDER BY id", Long.class))
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(count("SELECT count(*) FROM outbox_dead_letter WHERE id = 100"))
                .isOne();
        for (int ahead = 0; ahead <= 3; ahead++) {
            assertThat(count("SELECT count(*) FROM pg_class WHERE relname = ?", partition(today.plusDays(ahead))))
                    .as("partition %s days ahead", ahead)
                    .isOne();
        }
        assertThat(new ArchivePartitions(dataSource, 3, Duration.ofDays(7)).maintain())
                .isEmpty();
    }

    @Test
    void attemptLogKeepsTheRetentionPeriodAndTheHistoryOfDeadLetters() throws Exception {
        jdbc.update("INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                + " created_at, dead_at) VALUES (7, 'default', 'k', '{}', 0, 3, 3, now(), now())");
        jdbc.update("INSERT INTO outbox_attempt (job_id, attempt, outcome, finished_at) VALUES"
                + " (1, 1, 'done', now() - interval '9 days'),"
                + " (2, 1, 'retry', now() - interval '6 days'),"
                + " (7, 1, 'retry', now() - interval '20 days'),"
                + " (7, 3, 'dead', now() - interval '19 days')");

        int deleted = new AttemptLogCleaner(dataSource, Duration.ofDays(7)).clean();

        assertThat(deleted).isOne();
        assertThat(jdbc.queryForList("SELECT job_id FROM outbox_attempt ORDER BY job_id, attempt", Long.class))
                .containsExactly(2L, 7L, 7L);
    }

    private static String partition(LocalDate day) {
        return "outbox_job_archive_p" + day.format(DateTimeFormatter.BASIC_ISO_DATE);
    }
}
