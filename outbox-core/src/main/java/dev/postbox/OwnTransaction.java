package dev.postbox;

import dev.postbox.internal.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs JDBC work in a short transaction of its own, the way the engine runs its own: commit when the
 * work returns, roll back when it throws (a failing rollback is attached to the work's exception,
 * never hides it), and the connection's auto-commit mode restored. For modules that keep state of
 * their own in Postbox's database (HTTP delivery's endpoints and fan-out cursors) and may not use the
 * core's {@code internal} helper; work that belongs in the caller's transaction goes through {@link
 * Outbox} on the caller's connection instead. Like the engine's, the transaction is ended by the
 * server when its connection stays idle inside it for more than 5 s (a client cut off by the
 * network must not keep its row locks): do no slow work between its statements.
 *
 * <pre>{@code
 * int created = OwnTransaction.call(dataSource, c -> expandBatch(c, job));
 * }</pre>
 */
public final class OwnTransaction {

    private OwnTransaction() {}

    /** Work on the transaction's connection that returns a result. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs the work in one transaction on a new connection from the data source, and closes the
     * connection.
     *
     * @return what the work returned, after the commit
     * @throws SQLException what the work, the commit or the connection threw (after the rollback)
     */
    public static <T> T call(DataSource dataSource, Work<T> work) throws SQLException {
        Require.notNull(dataSource, "dataSource");
        Require.notNull(work, "work");
        return Transactions.call(dataSource, work::run);
    }
}
