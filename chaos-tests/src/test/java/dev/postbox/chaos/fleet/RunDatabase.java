package dev.postbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The database plumbing both chaos drivers share: a run's own database and its pools. */
final class ChaosDatabases {

    private static final Logger log = LoggerFactory.getLogger(ChaosDatabases.class);

    private ChaosDatabases() {}

    /** The URL of database {@code database} on the server of {@code url}. */
    static String withDatabase(String url, String database) {
        return TestDatabase.withDatabase(url, database);
    }

    /** A small pool whose connections carry {@code applicationName} (for pg_terminate_backend). */
    static HikariDataSource pool(String url, String applicationName, int size) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName);
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(1);
        hc.setConnectionTimeout(15_000);
        hc.setPoolName(applicationName);
        return new HikariDataSource(hc);
    }

    /** Drops a run's database, ending its sessions; a failure is logged, not thrown. */
    static void dropDatabase(String adminUrl, String name) {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            log.warn("Dropping chaos database {} failed", name, e);
        }
    }
}
