package dev.postbox.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.spring.PostboxProperties.SchemaInitialization;
import dev.postbox.spring.PostboxSchemaInitializer;
import dev.postbox.spring.PostboxSchemaMissingException;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A worker whose connection the server cut while it checked Postbox's tables exited at start-up
 * (seen in the chaos soak: {@code pg_terminate_backend} during a worker's start). Start-up work now
 * survives a lost connection, and still fails at once for anything else.
 */
class StartupRetryTest {

    @Test
    void aSchemaCheckWhoseConnectionIsCutByTheServerStillStarts() throws SQLException {
        HikariDataSource database = TestDatabase.create();
        try {
            AtomicInteger handedOut = new AtomicInteger();
            DelegatingDataSource firstOneCut = new DelegatingDataSource(database) {
                @Override
                public Connection getConnection() throws SQLException {
                    Connection c = super.getConnection();
                    if (handedOut.getAndIncrement() == 0) {
                        terminate(database, c);
                    }
                    return c;
                }
            };

            PostboxSchemaInitializer initializer =
                    new PostboxSchemaInitializer(firstOneCut, SchemaInitialization.NEVER);

            assertThat(initializer.initialize()).isEmpty();
            assertThat(handedOut.get()).as("connections asked for").isGreaterThan(1);
        } finally {
            TestDatabase.drop(database);
        }
    }

    @Test
    void anythingButALostConnectionFailsAtOnceWithItsOwnMessage() {
        HikariDataSource empty = TestDatabase.createEmpty();
        try {
            AtomicInteger handedOut = new AtomicInteger();
            DelegatingDataSource counting = new DelegatingDataSource(empty) {
                @Override
                public Connection getConnection() throws SQLException {
                    handedOut.incrementAndGet();
                    return super.getConnection();
                }
            };

            assertThatThrownBy(() -> new PostboxSchemaInitializer(counting, SchemaInitialization.NEVER).initialize())
                    .isInstanceOf(PostboxSchemaMissingException.class);
            int onePass = handedOut.get();

            assertThatThrownBy(() -> StartupRetry.run(
                            "schema check",
                            () -> new PostboxSchemaInitializer(counting, SchemaInitialization.NEVER).initialize()))
                    .isInstanceOf(PostboxSchemaMissingException.class);
            assertThat(handedOut.get()).as("no second pass").isEqualTo(2 * onePass);
        } finally {
            TestDatabase.drop(empty);
        }
    }

    @Test
    void lostConnectionsAreToldApartFromOtherFailures() {
        assertThat(StartupRetry.connectionLost(wrapped(new SQLException("cut", "57P01"))))
                .isTrue();
        assertThat(StartupRetry.connectionLost(wrapped(new SQLException("i/o", "08006"))))
                .isTrue();
        assertThat(StartupRetry.connectionLost(wrapped(new SQLException("starting up", "57P03"))))
                .isTrue();
        assertThat(StartupRetry.connectionLost(wrapped(new SQLTransientConnectionException("pool timeout"))))
                .isTrue();
        assertThat(StartupRetry.connectionLost(wrapped(new SQLException("unique", "23505"))))
                .isFalse();
        assertThat(StartupRetry.connectionLost(wrapped(new SQLException("no state"))))
                .isFalse();
        assertThat(StartupRetry.connectionLost(new IllegalArgumentException("bad url")))
                .isFalse();
    }

    @Test
    void aConnectionLostOnEveryAttemptFailsAfterTheLastWithTheFailure() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> StartupRetry.run("endpoint registration", () -> {
                    attempts.incrementAndGet();
                    throw wrapped(new SQLException("cut", "57P01"));
                }))
                .hasMessage("wrapped")
                .hasRootCauseMessage("cut");
        assertThat(attempts).hasValue(StartupRetry.ATTEMPTS);
    }

    private static IllegalStateException wrapped(SQLException e) {
        return new IllegalStateException("wrapped", e);
    }

    /** Ends the server side of {@code c} from another connection and waits until it is gone. */
    private static void terminate(HikariDataSource database, Connection c) throws SQLException {
        int pid;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        }
        try (Connection other = database.getConnection();
                PreparedStatement kill = other.prepareStatement("SELECT pg_terminate_backend(?, 5000)")) {
            kill.setInt(1, pid);
            try (ResultSet rs = kill.executeQuery()) {
                rs.next();
                assertThat(rs.getBoolean(1)).as("backend %s terminated", pid).isTrue();
            }
        }
    }
}
