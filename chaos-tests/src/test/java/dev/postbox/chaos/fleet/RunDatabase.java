package dev.postbox.chaos.fleet;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's own database, created fresh on a server and dropped when closed ({@code
 * -Dchaos.keepDatabase=true} keeps it for inspection), with the pools the drivers use on it.
 */
public final class RunDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RunDatabase.class);

    private final String adminUrl;
    private final String name;
    private final String url;

    private RunDatabase(String adminUrl, String name) {
        this.adminUrl = adminUrl;
        this.name = name;
        this.url = TestDatabase.withDatabase(adminUrl, name);
    }

    /** Creates database {@code <prefix>_<random hex>} on the server of {@code adminUrl}. */
    public static RunDatabase create(String adminUrl, String prefix) throws SQLException {
        String name = prefix.replace('-', '_') + "_" + Long.toHexString(System.nanoTime() & 0xffffffffL);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return new RunDatabase(adminUrl, name);
    }

    public String url() {
        return url;
    }

    /** The database's URL with {@code ApplicationName} set (pg_terminate_backend finds sessions by it). */
    public String url(String applicationName) {
        return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }

    /** A small pool whose connections carry {@code applicationName}. */
    public HikariDataSource pool(String applicationName, int size) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url(applicationName));
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(1);
        hc.setConnectionTimeout(15_000);
        hc.setPoolName(applicationName);
        return new HikariDataSource(hc);
    }

    /** Drops the database, ending its sessions; a failure is logged, not thrown. */
    @Override
    public void close() {
        if (Boolean.getBoolean("chaos.keepDatabase")) {
            log.info("Keeping database {} (-Dchaos.keepDatabase=true)", name);
            return;
        }
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            log.warn("Dropping database {} failed", name, e);
        }
    }
}
