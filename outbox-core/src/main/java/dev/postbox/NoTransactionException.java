package dev.postbox;

/**
 * Enqueue was called without an active transaction on the outbox's {@code DataSource}, so the job
 * could not be made atomic with the caller's business change.
 */
public class NoTransactionException extends IllegalStateException {

    public NoTransactionException(String message) {
        super(message);
    }
}
