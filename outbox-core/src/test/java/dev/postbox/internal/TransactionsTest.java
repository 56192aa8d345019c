package dev.postbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.postbox.OwnTransaction;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

class TransactionsTest {

    private final DataSource dataSource = TestDatabase.createEmpty();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);

    @BeforeEach
    void table() {
        jdbc.execute("CREATE TABLE tx_probe (n int)");
    }

    @AfterEach
    void dropDatabase() {
        TestDatabase.drop(dataSource);
    }

    @Test
    void workThatReturnsIsCommittedAndTheConnectionsAutoCommitIsRestored() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            int result = Transactions.call(c, tx -> insert(tx, 1));
            assertThat(result).isEqualTo(1);
            assertThat(c.getAutoCommit()).isTrue();
        }
        assertThat(count()).isEqualTo(1);
    }

    /**
     * Issue 32: the server ends an engine transaction whose client stays idle (a worker cut off by a
     * network black hole), freeing its row locks; the session's own setting is back afterwards.
     */
    @Test
    void theServerEndsAnEngineTransactionThatStaysIdleLongerThanTheBound() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(Transactions.call(c, TransactionsTest::idleTimeout)).isEqualTo("5s");
            assertThat(idleTimeout(c)).as("after the transaction").isEqualTo("0");
        }
    }

    @Test
    void aTighterIdleTimeoutOfTheUsersIsKept() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET idle_in_transaction_session_timeout = '800ms'");
            }
            assertThat(Transactions.call(c, TransactionsTest::idleTimeout)).isEqualTo("800ms");
            try (Statement s = c.createStatement()) {
                s.execute("SET idle_in_transaction_session_timeout = '1min'");
            }
            assertThat(Transactions.call(c, TransactionsTest::idleTimeout)).isEqualTo("5s");
            try (Statement s = c.createStatement()) {
                s.execute("RESET idle_in_transaction_session_timeout");
            }
        }
    }

    private static String idleTimeout(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SHOW idle_in_transaction_session_timeout")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void workThatThrowsIsRolledBackAndItsExceptionReachesTheCaller() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThatThrownBy(() -> Transactions.run(c, tx -> {
                        insert(tx, 1);
                        throw new IllegalStateException("boom");
                    }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("boom");
            assertThat(c.getAutoCommit()).isTrue();
        }
        assertThat(count()).isZero();
    }

    @Test
    void aFailedStatementRollsBackWhatTheTransactionDidBeforeIt() {
        assertThatThrownBy(() -> Transactions.call(dataSource, tx -> {
                    insert(tx, 1);
                    return insertInto(tx, "no_such_table");
                }))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("no_such_table");
        assertThat(count()).isZero();
    }

    @Test
    void rolledBackWorkLeavesNothingBehind() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            int result = Transactions.rolledBack(c, tx -> insert(tx, 2));
            assertThat(result).isEqualTo(1);
            assertThat(c.getAutoCommit()).isTrue();
        }
        assertThat(count()).isZero();
    }

    @Test
    void theModulesDoorCommitsWhatReturnsAndRollsBackWhatThrows() throws SQLException {
        int inserted = OwnTransaction.call(dataSource, tx -> insert(tx, 1) + insert(tx, 2));
        assertThat(inserted).isEqualTo(2);
        assertThatThrownBy(() -> OwnTransaction.call(dataSource, tx -> {
                    insert(tx, 3);
                    throw new SQLException("boom");
                }))
                .isInstanceOf(SQLException.class)
                .hasMessage("boom");
        assertThat(count())
                .as("the two committed rows, not the rolled back one")
                .isEqualTo(2);
        assertThatThrownBy(() -> OwnTransaction.call(null, tx -> 1)).hasMessage("dataSource may not be null");
        assertThatThrownBy(() -> OwnTransaction.call(dataSource, null)).hasMessage("work may not be null");
    }

    private static int insert(Connection c, int n) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("INSERT INTO tx_probe VALUES (" + n + ")");
        }
    }

    private static int insertInto(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
        }
    }

    private int count() {
        Integer n = jdbc.queryForObject("SELECT count(*) FROM tx_probe", Integer.class);
        return n == null ? -1 : n;
    }
}
