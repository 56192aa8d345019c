package dev.postbox.http.internal;

import java.sql.SQLException;

/**
 * Database errors of writes that carry secrets (endpoint rows: signing secrets, header values, URLs)
 * stripped of the data they may quote. PostgreSQL's error {@code DETAIL} of a constraint violation
 * holds the whole failing row, and the JDBC driver appends it to the exception's message; a message
 * or a logged stack trace would then print the secret. The server's own log cannot be kept from
 * recording it (that is {@code log_error_verbosity}, a superuser setting), which is why Postbox
 * validates every checked column before writing.
 */
public final class SqlErrors {

    private static final int MAX_LENGTH = 200;

    private SqlErrors() {}

    /**
     * A copy of {@code e} holding only the first line of its message (PostgreSQL's primary message,
     * which names the constraint but not the row), shortened, with its SQLState and stack trace, and no
     * cause: the original, detail and all, is dropped.
     */
    public static SQLException withoutData(SQLException e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline);
        }
        if (message.length() > MAX_LENGTH) {
            message = message.substring(0, MAX_LENGTH) + "…";
        }
        SQLException clean = new SQLException(
                message + " (SQLState " + e.getSQLState() + "; row data left out: it may hold secrets)",
                e.getSQLState(),
                e.getErrorCode());
        clean.setStackTrace(e.getStackTrace());
        return clean;
    }
}
