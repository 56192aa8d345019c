package dev.postbox.http.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The one place where HTTP delivery runs JDBC work in a transaction of its own: commit when the work
 * returns, roll back when it throws (the rollback's own failure is attached to the work's exception,
 * never hides it), and the connection's auto-commit mode as it was before. The core has the same
 * helper in its {@code internal} package, which other modules may not import.
 */
public final class Transactions {

    private Transactions() {}

    /** Work on a connection that returns a result. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs the work in one transaction on a new connection from the data source. */
    public static <T> T call(DataSource dataSource, Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            T result;
            try {
                result = work.run(c);
                c.commit();
            } catch (Throwable e) {
                undo(c, autoCommit, e);
                throw e;
            }
            c.setAutoCommit(autoCommit);
            return result;
        }
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
