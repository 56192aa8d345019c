package dev.postbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Maintenance service: deletes idempotency keys whose dedup window has passed, in small batches. */
final class IdempotencyKeyCleaner implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyKeyCleaner.class);
    private static final String DELETE = "DELETE FROM outbox_idempotency_key WHERE idempotency_key IN ("
            + " SELECT idempotency_key FROM outbox_idempotency_key WHERE expires_at < now()"
            + " LIMIT 5000 FOR UPDATE SKIP LOCKED)";
    /** The same for the keys of named tenants (schema V10). */
    private static final String DELETE_TENANT_KEYS =
            "DELETE FROM outbox_tenant_idempotency_key WHERE (tenant, idempotency_key) IN ("
                    + " SELECT tenant, idempotency_key FROM outbox_tenant_idempotency_key WHERE expires_at < now()"
                    + " LIMIT 5000 FOR UPDATE SKIP LOCKED)";

    private final DataSource dataSource;
    private final FailureBackoff failures = new FailureBackoff(log, "Cleaning expired idempotency keys");

    IdempotencyKeyCleaner(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void run() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            for (String delete : new String[] {DELETE, DELETE_TENANT_KEYS}) {
                int deleted;
                do {
                    try (PreparedStatement ps = c.prepareStatement(delete)) {
                        deleted = ps.executeUpdate();
                    }
                } while (deleted == 5000);
            }
            failures.succeeded();
        } catch (SQLException | RuntimeException e) {
            failures.failed(e, "it runs again at the next maintenance interval");
        }
    }
}
