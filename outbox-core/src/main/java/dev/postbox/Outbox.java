package dev.postbox;

import dev.postbox.internal.JobWriter;
import dev.postbox.internal.WakeUps;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Writes jobs in the caller's transaction. With Spring-managed transactions the job joins the
 * transaction bound to the outbox's {@code DataSource}; with plain JDBC pass the connection. The
 * job exists if and only if that transaction commits.
 *
 * <p>Enqueue sends no {@code NOTIFY} in that transaction (a notifying transaction takes a
 * database-wide lock at commit, which would serialise the application's enqueueing transactions).
 * The workers are woken after the commit: this process's own at once, other processes' by a
 * notification sent from another connection, at most one per {@link PostboxConfig#notifyInterval()}.
 * A Spring-managed transaction is followed with {@code afterCommit}; on a plain JDBC connection
 * Postbox learns of the commit from PostgreSQL ({@code txid_status}), within about one notify
 * interval.
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *     orders.save(order);
 *     outbox.enqueue(JobRequest.of("reserve-stock", new Reservation(order.id(), order.sku())));
 * }
 * }</pre>
 */
public final class Outbox {

    private final DataSource dataSource;
    private final JobWriter writer;
    private final TransactionMode transactionMode;
    private final PostboxListener listener;
    private final WakeUps wakeUps;
    private final PostboxInstrumentation instrumentation;
    private final TenantResolver tenants;
    private final PostboxSchema schema;

    Outbox(
            DataSource dataSource,
            JobWriter writer,
            TransactionMode transactionMode,
            PostboxListener listener,
            WakeUps wakeUps,
            PostboxInstrumentation instrumentation,
            TenantResolver tenants) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
        this.writer = writer;
        this.transactionMode = transactionMode;
        this.listener = listener;
        this.wakeUps = wakeUps;
        this.instrumentation = instrumentation;
        this.tenants = tenants;
        this.schema = PostboxSchema.of(dataSource);
    }

    /**
     * Enqueues in the Spring transaction bound to the outbox's {@code DataSource}.
     *
     * @throws NoTransactionException when no such transaction is active and the transaction mode
     *     is {@link TransactionMode#REQUIRED}
     * @throws IllegalArgumentException when the payload is not JSON or is too large
     */
    public EnqueueResult enqueue(JobRequest request) {
        return enqueueAll(List.of(Require.notNull(request, "request"))).get(0);
    }

    /** Enqueues several jobs in the current transaction, in one batch where no idempotency key is set. */
    public List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
        Require.notNull(requests, "requests");
        if (requests.isEmpty()) {
            return List.of();
        }
        Connection c = connection();
        try {
            return write(c, requests);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /**
     * Enqueues on the given JDBC connection, inside the transaction the caller controls.
     *
     * @throws NoTransactionException when the connection is in auto-commit mode and the
     *     transaction mode is {@link TransactionMode#REQUIRED}
     */
    public EnqueueResult enqueue(Connection connection, JobRequest request) {
        return enqueueAll(connection, List.of(Require.notNull(request, "request")))
                .get(0);
    }

    /** Enqueues several jobs on the given connection. */
    public List<EnqueueResult> enqueueAll(Connection connection, List<JobRequest> requests) {
        Require.notNull(connection, "connection");
        try {
            if (transactionMode == TransactionMode.REQUIRED && connection.getAutoCommit()) {
                throw new NoTransactionException("Postbox enqueue needs a transaction: the given connection is in"
                        + " auto-commit mode. Call connection.setAutoCommit(false) and commit after your business"
                        + " writes, or set postbox.transaction-mode=optional to allow jobs written on their own.");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the connection's auto-commit mode failed", e);
        }
        return write(connection, requests);
    }

    private List<EnqueueResult> write(Connection c, List<JobRequest> given) {
        List<JobRequest> requests = withTenants(given);
        List<EnqueueResult> results = instrumentation.enqueue(requests, amended -> insert(c, amended));
        if (results.size() != requests.size()) {
            throw new IllegalStateException(
                    "PostboxInstrumentation " + instrumentation.getClass().getName()
                            + " returned " + results.size() + " results for " + requests.size()
                            + " requests: it must pass every request on to the write, once");
        }
        for (int i = 0; i < requests.size(); i++) {
            listener.enqueued(
                    requests.get(i).queue(),
                    requests.get(i).kind(),
                    results.get(i).created());
        }
        return results;
    }

    /**
     * The requests with the resolver's current tenant applied (docs/tenants.md): a request without a
     * tenant gets it; a request whose tenant differs from it is refused, so that code running for one
     * tenant cannot write another tenant's jobs (a webhook delivery to another tenant's endpoint or an
     * event published for another tenant included). Without a current tenant (the resolver returns
     * null: a system thread, the engine's own threads) the requests are taken as they are.
     *
     * @throws IllegalArgumentException naming both tenants when a request contradicts the resolver
     */
    private List<JobRequest> withTenants(List<JobRequest> requests) {
        if (tenants == TenantResolver.NONE || requests.isEmpty()) {
            return requests;
        }
        String current = tenants.currentTenant();
        if (current == null) {
            return requests;
        }
        TenantId.validate(current, "TenantResolver " + tenants.getClass().getName() + " returned tenant");
        List<JobRequest> resolved = new java.util.ArrayList<>(requests.size());
        for (JobRequest r : requests) {
            String given = r.tenant().orElse(null);
            if (given == null) {
                resolved.add(r.toBuilder().tenant(current).build());
            } else if (given.equals(current)) {
                resolved.add(r);
            } else {
                throw new IllegalArgumentException("A job of kind '" + r.kind() + "'"
                        + r.endpoint().map(e -> " for endpoint '" + e + "'").orElse("")
                        + " has tenant '" + given + "', but the current tenant (TenantResolver "
                        + tenants.getClass().getName() + ") is '" + current + "': a job may not be enqueued for"
                        + " another tenant. Leave the request's tenant unset, or enqueue it where the resolver"
                        + " returns no tenant (a system thread)");
            }
        }
        return resolved;
    }

    private List<EnqueueResult> insert(Connection c, List<JobRequest> requests) {
        try {
            // The caller's connection as it is (Spring hands out the transaction's own), qualified for
            // Postbox's schema only in Postbox's statements.
            JobWriter.Written written = writer.insertAll(schema.connection(c), requests);
            if (written.createdAny()) {
                wakeUps.afterCommit(c, written.transactionId());
            }
            return written.results();
        } catch (SQLException e) {
            throw new IllegalStateException("Enqueueing " + requests.size() + " job(s) failed: " + e.getMessage(), e);
        }
    }

    private Connection connection() {
        boolean inTransaction = TransactionSynchronizationManager.isActualTransactionActive();
        if (!inTransaction && transactionMode == TransactionMode.REQUIRED) {
            throw new NoTransactionException("Postbox enqueue needs an active transaction so that the job commits"
                    + " or rolls back with your business change. Annotate the calling method with @Transactional"
                    + " (or use a TransactionTemplate), or set postbox.transaction-mode=optional to allow jobs"
                    + " written on their own.");
        }
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            if (transactionMode == TransactionMode.REQUIRED && c.getAutoCommit()) {
                DataSourceUtils.releaseConnection(c, dataSource);
                throw new NoTransactionException("Postbox enqueue found a transaction, but not one on the outbox's"
                        + " DataSource: the job would commit on its own. Use a transaction manager for that"
                        + " DataSource (DataSourceTransactionManager, JdbcTransactionManager or JpaTransactionManager"
                        + " on the same DataSource).");
            }
        } catch (SQLException e) {
            DataSourceUtils.releaseConnection(c, dataSource);
            throw new IllegalStateException("Reading the connection's auto-commit mode failed", e);
        }
        return c;
    }
}
