package dev.postbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Bounds how long a transaction of Postbox's own may hold its row locks while its client says
 * nothing: the server ends a session that stays idle in such a transaction for longer than {@link
 * #LIMIT} ({@code idle_in_transaction_session_timeout}, set for this transaction only), which rolls
 * it back and frees its locks.
 *
 * <p>Why: a worker cut off from the database by a network black hole (no RST, no FIN) cannot
 * commit or roll back, and its server session waits for it for as long as the cut lasts (the
 * server's TCP keepalive notices after hours). The rows it locked (a claim's, or the job a
 * transactional handler completed just before its commit) are skipped by every other worker's
 * {@code SKIP LOCKED}: the job stays running past its lease. With the bound the rescuer returns it
 * at most {@code LIMIT} plus a rescue interval after its lease ended. Between the statements of a
 * healthy transaction of Postbox's own the client is idle for a network round trip; a worker paused
 * longer than this at such a point loses the transaction, which is what a crash would do.
 *
 * <p>A tighter setting of the user's (a role's or the pool's) is kept; the statement costs one round
 * trip per transaction.
 */
public final class IdleTransactionBound {

    /** The longest a transaction of Postbox's own may stay idle before the server ends its session. */
    public static final Duration LIMIT = Duration.ofSeconds(5);

    private static final String SQL = "SELECT set_config('idle_in_transaction_session_timeout', '"
            + LIMIT.toMillis() + "ms', true) WHERE current_setting('idle_in_transaction_session_timeout')::interval"
            + " NOT BETWEEN interval '1 millisecond' AND interval '" + LIMIT.toMillis() + " milliseconds'";

    private IdleTransactionBound() {}

    /** Applies the bound to the transaction open on {@code c} (auto-commit off), until it ends. */
    public static void apply(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(SQL);
        }
    }
}
