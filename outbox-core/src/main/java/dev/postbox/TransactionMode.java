package dev.postbox;

/** Whether enqueue insists on running inside the caller's transaction. */
public enum TransactionMode {
    /**
     * Enqueue fails with {@link NoTransactionException} unless a transaction is active on the
     * outbox's {@code DataSource}: the job commits or rolls back with the business change.
     */
    REQUIRED,
    /** Without a transaction the job is written on its own (auto-commit). Use with care. */
    OPTIONAL
}
