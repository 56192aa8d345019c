package dev.postbox.benchmarks;

import dev.postbox.AttemptLogLevel;
import dev.postbox.PostboxConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/** Shared set-up: bulk job inserts, the engine's own SQL, engine settings from system properties. */
final class Fixtures {

    private Fixtures() {}

    /** Inserts {@code count} pending no-op jobs of {@code kind} in one statement, then VACUUM ANALYZE. */
    static void insertPending(DataSource ds, int count, String kind) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_job (kind, payload)"
                    + " SELECT ?, jsonb_build_object('n', g) FROM generate_series(1, ?) g")) {
                ps.setString(1, kind);
                ps.setInt(2, count);
                ps.executeUpdate();
            }
            execute(c, "VACUUM ANALYZE outbox_job");
        }
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            execute(c, sql);
        }
    }

    static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Engine settings: the documented defaults unless {@code -Dbench.<setting>} overrides one. */
    static PostboxConfig engineConfig() {
        return engineConfig(Integer.getInteger("bench.concurrency"));
    }

    /** {@link #engineConfig()} with the given concurrency (null for the engine default). */
    static PostboxConfig engineConfig(Integer concurrency) {
        PostboxConfig.Builder b = PostboxConfig.custom();
        if (concurrency != null) {
            b.concurrency(concurrency);
        }
        Integer claim = Integer.getInteger("bench.claimBatchSize");
        if (claim != null) {
            b.claimBatchSize(claim);
        }
        Integer prefetch = Integer.getInteger("bench.prefetch");
        if (prefetch != null) {
            b.prefetch(prefetch);
        }
        Integer completion = Integer.getInteger("bench.completionBatchSize");
        if (completion != null) {
            b.completionBatchSize(completion);
        }
        String attemptLog = System.getProperty("bench.attemptLog");
        if (attemptLog != null) {
            b.attemptLog(AttemptLogLevel.valueOf(attemptLog));
        }
        return b.build();
    }

    static Map<String, Object> describe(PostboxConfig config) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("concurrency", config.concurrency());
        m.put("claimBatchSize", config.claimBatchSize());
        m.put("prefetch", config.prefetch());
        m.put("completionBatchSize", config.completionBatchSize());
        m.put("completionFlushIntervalMs", config.completionFlushInterval().toMillis());
        m.put("attemptLog", config.attemptLog().name());
        m.put("listenNotify", config.listenNotify());
        return m;
    }
}
