package dev.postbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Base of database tests: a fresh database per class, engines stopped after each test. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatabaseTest {

    protected HikariDataSource dataSource;
    protected JdbcTemplate jdbc;
    protected TransactionTemplate tx;
    private final List<Postbox> engines = new ArrayList<>();

    @BeforeAll
    void createDatabase() {
        dataSource = TestDatabase.create();
        jdbc = new JdbcTemplate(dataSource);
        tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    @AfterAll
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    @AfterEach
    void stopEngines() {
        engines.forEach(Postbox::stop);
        engines.clear();
        jdbc.execute("TRUNCATE outbox_job, outbox_job_archive, outbox_dead_letter, outbox_idempotency_key,"
                + " outbox_tenant_idempotency_key, outbox_tenant,"
                + " outbox_attempt, outbox_queue, outbox_worker");
    }

    /** A builder whose engine is stopped after the test. */
    protected Postbox track(Postbox postbox) {
        engines.add(postbox);
        return postbox;
    }

    /** Fast timings for tests: short polls and leases. */
    protected PostboxConfig.Builder fastConfig() {
        return PostboxConfig.custom()
                .pollInterval(java.time.Duration.ofMillis(50))
                .completionFlushInterval(java.time.Duration.ofMillis(2))
                .shutdownGrace(java.time.Duration.ofSeconds(5));
    }

    protected EnqueueResult enqueueCommitted(Outbox outbox, JobRequest request) {
        return tx.execute(s -> outbox.enqueue(request));
    }

    protected long count(String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
