package dev.postbox.spring.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.PostboxSchema;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Whether the application's connection pool can serve the worker: a pool smaller than what the
 * worker may hold at once makes handlers and heartbeats wait for connections, and a lease that is
 * not extended in time expires while its job runs (the job then runs again). Only HikariCP pools
 * (Spring Boot's default) are checked; others are left alone. When the application left {@code
 * postbox.worker.concurrency} at its default, the worker runs fewer handlers to fit the pool instead
 * ({@link #fittedConcurrency}), so that a default application (Hikari's 10) starts without a warning.
 */
public final class PoolSizeCheck {

    /**
     * Connections the engine's own threads may hold at once besides the handlers': the claim, the
     * completions, two maintenance threads (heartbeat, start marks, rescuer and the rest), the
     * notification listener and the notification sender. (The schedule materialiser and the commit
     * watcher of plain-JDBC enqueues take one more each while they work; the message says so.)
     */
    static final int ENGINE_CONNECTIONS = 6;

    private static final boolean HIKARI_PRESENT =
            ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", PoolSizeCheck.class.getClassLoader());

    private PoolSizeCheck() {}

    /**
     * The handler concurrency for {@code dataSource}'s pool, when the application left {@code
     * postbox.worker.concurrency} at its default {@code concurrency}: that default when the pool holds it
     * (or is not a HikariCP pool), else what the pool leaves after the engine's own connections (at
     * least 1), logged in one INFO line that says how to raise it.
     */
    public static int fittedConcurrency(DataSource dataSource, int concurrency, org.slf4j.Logger log) {
        Integer maximum = HIKARI_PRESENT ? hikariMaximum(PostboxSchema.unqualified(dataSource)) : null;
        int needed = concurrency + ENGINE_CONNECTIONS;
        if (maximum == null || maximum >= needed) {
            return concurrency;
        }
        int fitted = Math.max(1, maximum - ENGINE_CONNECTIONS);
        log.info(
                "Postbox runs {} handlers at once (postbox.worker.concurrency is not set): the DataSource pool allows {}"
                        + " connections and the engine holds up to {} of its own. For the default {}, set"
                        + " spring.datasource.hikari.maximum-pool-size to at least {} (plus what the application"
                        + " itself uses), or set postbox.worker.concurrency.",
                fitted,
                maximum,
                ENGINE_CONNECTIONS,
                concurrency,
                needed);
        return fitted;
    }

    /** The warning to log when the pool behind {@code dataSource} is too small for {@code concurrency}. */
    static Optional<String> warning(DataSource dataSource, int concurrency) {
        Integer maximum = HIKARI_PRESENT ? hikariMaximum(PostboxSchema.unqualified(dataSource)) : null;
        int needed = concurrency + ENGINE_CONNECTIONS;
        if (maximum == null || maximum >= needed) {
            return Optional.empty();
        }
        return Optional.of("Postbox's DataSource pool allows " + maximum + " connections, but the worker may hold "
                + needed + " at once (postbox.worker.concurrency=" + concurrency + " handlers + "
                + ENGINE_CONNECTIONS + " for claims, completions, maintenance and notifications; one more each for"
                + " the schedule materialiser and for watching plain-JDBC commits): handlers and heartbeats will wait for connections, and a lease not"
                + " extended in time expires while its job runs, so the job runs again. Set"
                + " spring.datasource.hikari.maximum-pool-size to at least " + needed
                + " (plus what the application itself uses), or lower postbox.worker.concurrency.");
    }

    private static @Nullable Integer hikariMaximum(DataSource dataSource) {
        try {
            return dataSource.isWrapperFor(HikariDataSource.class)
                    ? dataSource.unwrap(HikariDataSource.class).getMaximumPoolSize()
                    : null;
        } catch (SQLException e) {
            return null; // a DataSource that cannot say: not checked
        }
    }
}
