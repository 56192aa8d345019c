package dev.postbox.internal;

import dev.postbox.PostboxConfig;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps this engine's row in {@code outbox_worker} fresh and removes it at shutdown. */
final class WorkerRegistry implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(WorkerRegistry.class);

    private final DataSource dataSource;
    private final PostboxConfig config;

    WorkerRegistry(DataSource dataSource, PostboxConfig config) {
        this.dataSource = dataSource;
        this.config = config;
    }

    @Override
    public void run() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_worker (id, host, queues)"
                        + " VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now();"
                        + " DELETE FROM outbox_worker WHERE heartbeat_at < now() - interval '1 day'")) {
            c.setAutoCommit(true);
            ps.setString(1, config.workerId());
            ps.setString(2, host());
            ps.setArray(3, Sql.texts(c, config.queues()));
            ps.execute();
        } catch (SQLException | RuntimeException e) {
            log.debug("Worker registry heartbeat failed", e);
        }
    }

    void deregister() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_worker WHERE id = ?")) {
            c.setAutoCommit(true);
            ps.setString(1, config.workerId());
            ps.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            log.debug("Removing worker {} from the registry failed", config.workerId(), e);
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
