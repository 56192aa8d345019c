package dev.postbox.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.SchemaInstaller;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * A fresh database per scenario on the server {@link TestDatabase} picks, with a pool that opens
 * connections on demand (the test pool opens all 32 at once, which a shared server may not have).
 */
final class Db {

    private Db() {}

    static HikariDataSource create() {
        HikariDataSource ds = createEmpty();
        new SchemaInstaller(ds).install();
        return ds;
    }

    /** A fresh database with the schema whose connections carry {@code applicationName} (see {@link CpuMeter}). */
    static HikariDataSource create(String applicationName) {
        HikariDataSource ds = createEmpty(applicationName);
        new SchemaInstaller(ds).install();
        return ds;
    }

    static HikariDataSource createEmpty() {
        return createEmpty(null);
    }

    private static HikariDataSource createEmpty(String applicationName) {
        String name = "postbox_bench_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
        String admin = TestDatabase.adminUrl();
        try (Connection c = connect(admin);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Creating database " + name + " failed: " + e.getMessage(), e);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withDatabase(admin, name));
        config.setMaximumPoolSize(32);
        config.setMinimumIdle(2);
        config.setConnectionTimeout(120_000);
        config.setInitializationFailTimeout(-1);
        config.setPoolName(name);
        if (applicationName != null) {
            config.addDataSourceProperty("ApplicationName", applicationName);
        }
        return new HikariDataSource(config);
    }

    /** Connects, waiting out a server that is briefly full ("too many clients"). */
    private static Connection connect(String url) throws SQLException {
        SQLException last = null;
        for (int i = 0; i < 60; i++) {
            try {
                return DriverManager.getConnection(url);
            } catch (SQLException e) {
                last = e;
                if (!"53300".equals(e.getSQLState())) {
                    throw e;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        throw last;
    }

    /** A pool of exactly {@code size} connections, all opened now, named {@code applicationName} in PostgreSQL. */
    static HikariDataSource fixedPool(String url, int size, String applicationName) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(120_000);
        config.setPoolName(applicationName);
        config.addDataSourceProperty("ApplicationName", applicationName);
        HikariDataSource ds = new HikariDataSource(config);
        List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                open.add(ds.getConnection());
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        return ds;
    }

    static String withDatabase(String url, String database) {
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int query = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + database + (query >= 0 ? url.substring(query) : "");
    }

    static void drop(HikariDataSource ds) {
        String name = ds.getPoolName();
        ds.close();
        try (Connection c = connect(TestDatabase.adminUrl());
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("Dropping database " + name + " failed: " + e.getMessage());
        }
    }
}
