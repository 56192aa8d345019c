package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Enqueue sends no NOTIFY in the business transaction (a notifying transaction takes a
 * database-wide lock at commit, which serialised every enqueueing transaction of the application).
 * The workers are woken after the commit: the engine in the same process in process, the others by
 * coalesced notifications from a connection of Postbox's own, on the channel old versions listen on.
 */
class WakeUpAfterCommitTest extends DatabaseTest {

    /** Long enough that a job handled within seconds was found because someone was woken. */
    private static final Duration NO_POLLING = Duration.ofMinutes(5);

    private static final Duration QUICKLY = Duration.ofSeconds(5);

    @Test
    void theInsertTriggerIsGoneAndTheEnqueueingConnectionNeverNotifies() throws Exception {
        assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'outbox_job'::regclass"
                        + " AND tgname = 'outbox_job_notify'"))
                .isZero();
        Outbox outbox = Postbox.builder(dataSource).build().outbox();
        try (Listening listening = new Listening()) {
            // Plain JDBC: the caller commits. The connection stays out of the pool until the
            // notification is in, so that the sender cannot borrow it (and share its process id).
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                int businessPid = backendPid(c);
                outbox.enqueue(c, JobRequest.of("noop", Map.of()));
                c.commit();
                // Notifications are delivered in commit order: one sent by the business transaction
                // itself (the old trigger's payload was empty) would come before the sender's.
                PGNotification first = listening.awaitNext();
                assertThat(first.getPID()).as("sent by another connection").isNotEqualTo(businessPid);
                assertThat(first.getName()).isEqualTo("postbox_job");
                assertThat(first.getParameter()).startsWith("postbox:");
                c.setAutoCommit(true);
            }

            // Spring-managed transaction (its connection is back in the pool after the commit).
            tx.executeWithoutResult(s -> outbox.enqueue(JobRequest.of("noop", Map.of())));
            assertThat(listening.awaitNext().getParameter()).startsWith("postbox:");
            assertThat(listening.drain()).as("one commit, one notification").isEmpty();
        }
    }

    @Test
    void aCommittedEnqueueWakesAnEngineOfAnotherProcessAtOnce() throws Exception {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        try (HikariDataSource otherProcess = pool(dataSource.getJdbcUrl())) {
            track(Postbox.builder(otherProcess)
                            .handler(
                                    "mark",
                                    job -> handled.add(job.payload(Mark.class).name()))
                            .config(fastConfig().pollInterval(NO_POLLING).build())
                            .build())
                    .start();
            await().atMost(QUICKLY).until(() -> listeners() >= 1);
            Outbox producer = Postbox.builder(dataSource).build().outbox();
            // The first job may be taken by the engine's first claim at start; after it, the engine
            // sleeps for the poll interval unless woken.
            enqueueCommitted(producer, JobRequest.of("mark", new Mark("first")));
            await().atMost(QUICKLY).until(() -> handled.contains("first"));

            enqueueCommitted(producer, JobRequest.of("mark", new Mark("spring")));
            await().atMost(QUICKLY).until(() -> handled.contains("spring"));

            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                producer.enqueue(c, JobRequest.of("mark", new Mark("plain-jdbc")));
                c.commit();
                c.setAutoCommit(true);
            }
            await().atMost(QUICKLY).until(() -> handled.contains("plain-jdbc"));
        }
        assertThat(handled).containsExactlyInAnyOrder("first", "spring", "plain-jdbc");
    }

    @Test
    void theEngineInTheSameProcessIsWokenWithoutANotification() throws Exception {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        Postbox postbox = track(Postbox.builder(dataSource)
                .handler("mark", job -> handled.add(job.payload(Mark.class).name()))
                .config(fastConfig()
                        .pollInterval(NO_POLLING)
                        .listenNotify(false)
                        .build())
                .build());
        postbox.start();
        enqueueCommitted(postbox.outbox(), JobRequest.of("mark", new Mark("first")));
        await().atMost(QUICKLY).until(() -> handled.contains("first"));

        enqueueCommitted(postbox.outbox(), JobRequest.of("mark", new Mark("spring")));
        await().atMost(QUICKLY).until(() -> handled.contains("spring"));

        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().enqueue(c, JobRequest.of("mark", new Mark("plain-jdbc")));
            c.commit();
            // A batch learns its transaction from the batch statement's rows.
            List<EnqueueResult> batch = postbox.outbox()
                    .enqueueAll(
                            c,
                            List.of(
                                    JobRequest.of("mark", new Mark("batch-1")),
                                    JobRequest.of("mark", new Mark("batch-2"))));
            assertThat(batch).allSatisfy(r -> assertThat(r.created()).isTrue());
            c.commit();
            c.setAutoCommit(true);
        }
        await().atMost(QUICKLY).until(() -> handled.containsAll(Set.of("plain-jdbc", "batch-1", "batch-2")));

        jdbc.update("INSERT INTO outbox_dead_letter (id, queue, kind, payload, priority, attempts, max_attempts,"
                + " created_at) VALUES (1000000000, 'default', 'mark', '{\"name\":\"replayed\"}', 0, 8, 8, now())");
        assertThat(postbox.admin().replay(1_000_000_000L)).isTrue();
        await().atMost(QUICKLY).until(() -> handled.contains("replayed"));
    }

    @Test
    void aRolledBackEnqueueWakesNobody() throws Exception {
        Outbox outbox = Postbox.builder(dataSource).build().outbox();
        try (Listening listening = new Listening()) {
            tx.executeWithoutResult(s -> {
                outbox.enqueue(JobRequest.of("noop", Map.of()));
                s.setRollbackOnly();
            });
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                outbox.enqueue(c, JobRequest.of("noop", Map.of()));
                c.rollback();
                c.setAutoCommit(true);
            }
            // The commit watcher checks the plain JDBC transaction within milliseconds. What arrives
            // is kept: once anything has, the condition stays false and the wait fails.
            List<PGNotification> heard = new ArrayList<>();
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> {
                heard.addAll(listening.drain());
                return heard.isEmpty();
            });

            enqueueCommitted(outbox, JobRequest.of("noop", Map.of()));
            assertThat(listening.awaitNext().getParameter())
                    .as("the same listener hears a committed enqueue")
                    .startsWith("postbox:");
        }
        assertThat(count("SELECT count(*) FROM outbox_job")).isOne();
    }

    @Test
    void theFirstCommitAfterAQuietIntervalIsAnnouncedAtOnceTheNextOnlyAfterTheInterval() throws Exception {
        Outbox outbox = Postbox.builder(dataSource)
                .config(PostboxConfig.custom()
                        .notifyInterval(Duration.ofMinutes(1))
                        .build())
                .build()
                .outbox();
        try (Listening listening = new Listening()) {
            enqueueCommitted(outbox, JobRequest.of("noop", Map.of()));
            assertThat(listening.awaitNext().getParameter())
                    .as("not held back by the interval")
                    .startsWith("postbox:");

            enqueueCommitted(outbox, JobRequest.of("noop", Map.of()));
            List<PGNotification> heard = new ArrayList<>();
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> {
                heard.addAll(listening.drain());
                return heard.isEmpty();
            });
        }
    }

    @Test
    void aBurstOfCommitsSharesFewNotificationsAndTheLastCommitIsCovered() throws Exception {
        int producers = 8;
        int perProducer = 50;
        int jobs = producers * perProducer;
        Duration interval = Duration.ofMillis(100);
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        Outbox outbox = Postbox.builder(dataSource)
                .config(PostboxConfig.custom().notifyInterval(interval).build())
                .build()
                .outbox();
        try (HikariDataSource otherProcess = pool(dataSource.getJdbcUrl());
                Listening listening = new Listening()) {
            track(Postbox.builder(otherProcess)
                            .handler(
                                    "count",
                                    job -> handled.add(job.payload(Count.class).n()))
                            .config(fastConfig().pollInterval(NO_POLLING).build())
                            .build())
                    .start();
            await().atMost(QUICKLY).until(() -> listeners() >= 2);

            ExecutorService pool = Executors.newFixedThreadPool(producers);
            long started = System.nanoTime();
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> runs = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    int from = p * perProducer;
                    runs.add(pool.submit(() -> {
                        go.await();
                        for (int i = from; i < from + perProducer; i++) {
                            enqueueCommitted(outbox, JobRequest.of("count", new Count(i)));
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> run : runs) {
                    run.get();
                }
            } finally {
                pool.shutdownNow();
            }
            // With polling off, the jobs of the last commits are only found if a notification
            // followed them.
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == jobs);
            long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
            List<PGNotification> received = listening.drain();

            assertThat(received).isNotEmpty();
            assertThat(received.size())
                    .as(
                            "at most one notification per %d ms over %d ms, for %d commits",
                            interval.toMillis(), elapsedMillis, jobs)
                    .isLessThanOrEqualTo((int) (elapsedMillis / interval.toMillis()) + 2)
                    .isLessThan(jobs / 4);
        }
    }

    record Mark(String name) {}

    record Count(int n) {}

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Sessions of this database listening on the channel (their last statement was the LISTEN). */
    private long listeners() {
        return count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND query = 'LISTEN postbox_job'");
    }

    /** A connection of the test's own in {@code LISTEN postbox_job}. */
    private final class Listening implements AutoCloseable {

        private final Connection connection;
        private final List<PGNotification> unread = new ArrayList<>();

        Listening() throws SQLException {
            connection = DriverManager.getConnection(dataSource.getJdbcUrl());
            try (Statement s = connection.createStatement()) {
                s.execute("LISTEN postbox_job");
            }
        }

        /** The notifications received since the last call. */
        List<PGNotification> drain() throws SQLException {
            PGNotification[] arrived = connection.unwrap(PGConnection.class).getNotifications(10);
            if (arrived != null) {
                unread.addAll(List.of(arrived));
            }
            List<PGNotification> out = new ArrayList<>(unread);
            unread.clear();
            return out;
        }

        /** The next notification, waiting for it a few seconds at most. */
        PGNotification awaitNext() throws SQLException {
            long deadline = System.nanoTime() + QUICKLY.toNanos();
            while (unread.isEmpty() && System.nanoTime() < deadline) {
                PGNotification[] arrived = connection.unwrap(PGConnection.class).getNotifications(100);
                if (arrived != null) {
                    unread.addAll(List.of(arrived));
                }
            }
            assertThat(unread).as("a notification within " + QUICKLY).isNotEmpty();
            return unread.remove(0);
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }
}
