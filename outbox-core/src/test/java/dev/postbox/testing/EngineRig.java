package dev.postbox.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.JobRequest;
import dev.postbox.Postbox;
import dev.postbox.PostboxConfig;
import dev.postbox.RetryPolicy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A fresh test database and what a test builds on it (engines, relays, clients), closed at the end
 * in the reverse order of their making, then the database dropped: the set-up the modules' tests of
 * the engine (the broker relays') share. Create it in {@code @BeforeEach}, close it in
 * {@code @AfterEach}.
 */
public final class EngineRig implements AutoCloseable {

    /** Retries quick enough for a test: 50 ms to 200 ms apart, 50 attempts. */
    public static final RetryPolicy FAST_RETRIES = RetryPolicy.custom()
            .base(Duration.ofMillis(50))
            .cap(Duration.ofMillis(200))
            .maxAttempts(50)
            .build();

    private final HikariDataSource db = TestDatabase.create();
    private final List<AutoCloseable> closing = new ArrayList<>();

    /** The test's database, with the Postbox schema installed. */
    public HikariDataSource db() {
        return db;
    }

    /** Closes {@code resource} at the end, before whatever was made earlier. */
    public <T extends AutoCloseable> T closeAtEnd(T resource) {
        closing.add(resource);
        return resource;
    }

    /** An engine polling every 50 ms, stopped at the end. */
    public Postbox build(Postbox.Builder builder) {
        return build(builder, config -> config);
    }

    /** An engine polling every 50 ms with {@code config}'s settings on top, stopped at the end. */
    public Postbox build(Postbox.Builder builder, UnaryOperator<PostboxConfig.Builder> config) {
        Postbox postbox = builder.config(config.apply(PostboxConfig.custom().pollInterval(Duration.ofMillis(50)))
                        .build())
                .build();
        closing.add(postbox::stop);
        return postbox;
    }

    /** {@link #build(Postbox.Builder, UnaryOperator)}, started. */
    public Postbox start(Postbox.Builder builder, UnaryOperator<PostboxConfig.Builder> config) {
        Postbox postbox = build(builder, config);
        postbox.start();
        return postbox;
    }

    /** Enqueues {@code requests} through {@code postbox} in one committed transaction. */
    public void commit(Postbox postbox, List<JobRequest> requests) throws SQLException {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            postbox.outbox().enqueueAll(c, requests);
            c.commit();
        }
    }

    /** The first column of the first row of a count query. */
    public long count(String sql) throws SQLException {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The first column of the first row as text; empty when there is no row or it is null. */
    public String text(String sql) throws SQLException {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() && rs.getString(1) != null ? rs.getString(1) : "";
        }
    }

    @Override
    public void close() throws Exception {
        try {
            for (int i = closing.size() - 1; i >= 0; i--) {
                closing.get(i).close();
            }
        } finally {
            TestDatabase.drop(db);
        }
    }
}
