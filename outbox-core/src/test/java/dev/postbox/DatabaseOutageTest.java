package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 11: the database goes away under a running engine (every connection to its database is
 * terminated and new ones are refused, as in a failover) and comes back. Each component that talks
 * to the database warns once, with the stack trace, and then stays quiet while it keeps failing
 * (at most one warning per 30 s); each says once that it works again; nothing is lost and no
 * transactional effect is applied twice.
 */
class DatabaseOutageTest extends DatabaseTest {

    private static final int JOBS = 4000;
    /** The components that surely fail during the outage, by the logger they warn on. */
    private static final Set<String> MUST_WARN = Set.of(
            "dev.postbox.internal.Dispatcher",
            "dev.postbox.internal.Heartbeat",
            "dev.postbox.internal.Rescuer",
            "dev.postbox.internal.NotificationListener");

    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final Logger postboxLog = (Logger) LoggerFactory.getLogger("dev.postbox");
    private final Logger dispatcherLog = (Logger) LoggerFactory.getLogger("dev.postbox.internal.Dispatcher");

    @BeforeEach
    void captureLogs() {
        events.start();
        postboxLog.addAppender(events);
        // Suppressed failures are logged at DEBUG: count the claim loop's, without printing them.
        dispatcherLog.setLevel(Level.DEBUG);
        dispatcherLog.setAdditive(false);
        dispatcherLog.addAppender(events);
    }

    @AfterEach
    void releaseLogs() {
        postboxLog.detachAppender(events);
        dispatcherLog.detachAppender(events);
        dispatcherLog.setAdditive(true);
        dispatcherLog.setLevel(null);
        events.stop();
    }

    private List<ILoggingEvent> captured(Predicate<ILoggingEvent> filter) {
        // ListAppender appends under the appender's own lock (AppenderBase.doAppend is synchronized),
        // not the list's: copying under any other lock races the engine's threads still logging.
        synchronized (events) {
            return new ArrayList<>(events.list.stream().filter(filter).toList());
        }
    }

    /** The outage warnings (other warnings, such as a fenced completion's, are per job). */
    private Map<String, List<ILoggingEvent>> warningsByComponent() {
        return captured(e -> e.getLevel() == Level.WARN
                        && e.getFormattedMessage().contains("Further failures are logged at most every 30 s"))
                .stream()
                .collect(Collectors.groupingBy(ILoggingEvent::getLoggerName, TreeMap::new, Collectors.toList()));
    }

    private void setConnections(String database, boolean allowed) throws Exception {
        try (Connection admin = DriverManager.getConnection(TestDatabase.adminUrl());
                Statement s = admin.createStatement()) {
            s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS " + allowed);
            if (!allowed) {
                try (PreparedStatement ps = admin.prepareStatement("SELECT count(pg_terminate_backend(pid))"
                        + " FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
                    ps.setString(1, database);
                    ps.execute();
                }
            }
        }
    }

    @Test
    void duringAnOutageEachComponentWarnsOnceAndAfterItEverythingFinishesOnce() throws Exception {
        jdbc.execute("CREATE TABLE IF NOT EXISTS outage_effect (job_id bigint NOT NULL, kind text NOT NULL)");
        jdbc.execute("TRUNCATE outage_effect");
        String database = dataSource.getPoolName();

        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(dataSource.getJdbcUrl());
        pool.setMaximumPoolSize(12);
        pool.setConnectionTimeout(250); // fail fast while the database is away
        pool.setValidationTimeout(250);
        pool.setPoolName(database + "_engine");
        try (HikariDataSource engineDb = new HikariDataSource(pool)) {
            Postbox producer = Postbox.builder(dataSource).build();
            for (int from = 0; from < JOBS; from += 1000) {
                List<JobRequest> batch = new ArrayList<>();
                for (int i = from; i < from + 1000; i++) {
                    batch.add(JobRequest.of(i % 2 == 0 ? "tx" : "plain", Map.of("i", i)));
                }
                tx.executeWithoutResult(s -> producer.outbox().enqueueAll(batch));
            }
            JdbcTemplate engineJdbc = new JdbcTemplate(engineDb);
            Postbox engine = track(Postbox.builder(engineDb)
                    .handler(HandlerRegistration.of(
                                    "tx",
                                    job -> engineJdbc.update("INSERT INTO outage_effect VALUES (?, 'tx')", job.id()))
                            .transactional())
                    .handler(
                            "plain",
                            job -> engineJdbc.update("INSERT INTO outage_effect VALUES (?, 'plain')", job.id()))
                    .config(fastConfig()
                            .workerId("through-the-outage")
                            .concurrency(4)
                            .claimBatchSize(100)
                            .prefetch(200)
                            .visibilityTimeout(Duration.ofSeconds(2))
                            .heartbeatInterval(Duration.ofMillis(300))
                            .rescueInterval(Duration.ofMillis(200))
                            .retryPolicy(RetryPolicy.custom()
                                    .base(Duration.ofMillis(10))
                                    .cap(Duration.ofMillis(50))
                                    .build())
                            .build())
                    .build());
            engine.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM outage_effect") >= 400);
            assertThat(warningsByComponent()).as("no warning before the outage").isEmpty();

            setConnections(database, false);
            try {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> warningsByComponent().keySet().containsAll(MUST_WARN));
                int suppressedBefore = captured(e ->
                                e.getLevel() == Level.DEBUG && e.getLoggerName().equals(dispatcherLog.getName()))
                        .size();
                Map<String, Integer> warned = new TreeMap<>();
                warningsByComponent().forEach((c, w) -> warned.put(c, w.size()));
                assertThat(warned.values())
                        .as("one warning each so far: %s", warned)
                        .containsOnly(1);
                // The components keep failing for two more seconds, and stay quiet.
                await().during(Duration.ofSeconds(2))
                        .atMost(Duration.ofSeconds(3))
                        .until(() -> warningsByComponent().values().stream().allMatch(w -> w.size() == 1));
                assertThat(captured(e -> e.getLevel() == Level.DEBUG
                                        && e.getLoggerName().equals(dispatcherLog.getName()))
                                .size())
                        .as("the claim loop kept trying (with backoff) and counted its failures")
                        .isGreaterThan(suppressedBefore + 1);
            } finally {
                setConnections(database, true);
            }

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> count("SELECT count(*) FROM outbox_job_archive WHERE state = 'done'") == JOBS);
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Set<String> recovered = captured(e -> e.getLevel() == Level.INFO
                                && e.getFormattedMessage().contains(" works again after "))
                        .stream()
                        .map(ILoggingEvent::getLoggerName)
                        .collect(Collectors.toSet());
                return recovered.containsAll(MUST_WARN);
            });
            engine.stop();
        }

        assertThat(count("SELECT count(*) FROM outbox_job")).as("nothing left").isZero();
        assertThat(count("SELECT count(*) FROM outbox_dead_letter"))
                .as("nothing dead")
                .isZero();
        assertThat(count("SELECT count(DISTINCT job_id) FROM outage_effect"))
                .as("nothing lost")
                .isEqualTo(JOBS);
        assertThat(count("SELECT count(*) FROM outage_effect WHERE kind = 'tx'"))
                .as("transactional effects exactly once")
                .isEqualTo(JOBS / 2);

        Map<String, List<ILoggingEvent>> warnings = warningsByComponent();
        assertThat(warnings.keySet()).containsAll(MUST_WARN);
        warnings.forEach((component, list) -> {
            assertThat(list)
                    .allSatisfy(w -> assertThat(w.getThrowableProxy())
                            .as("%s warns with the stack trace", component)
                            .isNotNull());
            for (int i = 1; i < list.size(); i++) {
                assertThat(list.get(i).getTimeStamp() - list.get(i - 1).getTimeStamp())
                        .as("%s: warnings at least 30 s apart", component)
                        .isGreaterThanOrEqualTo(30_000L);
            }
        });
    }
}
