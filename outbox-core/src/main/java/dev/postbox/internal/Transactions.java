package dev.postbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The one place that runs JDBC work in a transaction of Postbox's own: commit when the work
 * returns, roll back when it throws (the rollback's own failure is attached to the work's exception,
 * never hides it), and the connection's auto-commit mode as it was before.
 *
 * <p>For work in the caller's transaction (enqueue) Postbox uses the caller's connection as it is;
 * this helper is for the engine's own short transactions, which the server ends when they stay idle
 * longer than {@link IdleTransactionBound#LIMIT}.
 */
public final class Transactions {

    private Transactions() {}

    /** Work on a connection that returns a result. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Work on a connection without a result. */
    @FunctionalInterface
    public interface Step {
        void run(Connection c) throws SQLException;
    }

    /** Runs the work in one transaction on a new connection from the data source. */
    public static <T> T call(DataSource dataSource, Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return call(c, work);
        }
    }

    /** Runs the work in one transaction on the given connection. */
    public static <T> T call(Connection c, Work<T> work) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        T result;
        try {
            IdleTransactionBound.apply(c); // a partitioned worker's locks are freed by the server
            result = work.run(c);
            c.commit();
        } catch (Throwable e) {
            undo(c, autoCommit, e);
            throw e;
        }
        c.setAutoCommit(autoCommit);
        return result;
    }

    /** Runs the step in one transaction on the given connection. */
    public static void run(Connection c, Step step) throws SQLException {
        call(c, connection -> {
            step.run(connection);
            return Boolean.TRUE;
        });
    }

    /** Runs the work in one transaction that is always rolled back (e.g. {@code EXPLAIN ANALYZE}). */
    public static <T> T rolledBack(Connection c, Work<T> work) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        T result;
        try {
            result = work.run(c);
        } catch (Throwable e) {
            undo(c, autoCommit, e);
            throw e;
        }
        c.rollback();
        c.setAutoCommit(autoCommit);
        return result;
    }

    private static void undo(Connection c, boolean autoCommit, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        try {
            c.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }
}
