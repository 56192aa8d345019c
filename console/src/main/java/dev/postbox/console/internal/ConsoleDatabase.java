package dev.postbox.console.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Where the console reads Postbox's tables: runs one store's statement on a connection in auto-commit
 * mode and maps its rows, and tells the database's clock. The SQL is in one store per page or
 * resource, each with its planner notes ({@link QueueStore}, {@link LastHourStore}, {@link
 * WorkerStore}, {@link JobSearchStore}, {@link JobDetailStore}, {@link DeadLetterGroupStore}, {@link
 * EndpointStatsStore}, {@link ScheduleFireStore}); they hold the reads that Postbox's public admin
 * APIs do not offer. Writes go through the public APIs ({@code PostboxAdmin}, the endpoint registry,
 * the schedule admin).
 */
public final class ConsoleDatabase {

    private final DataSource dataSource;

    /** @param dataSource Postbox's tables in their schema, as the engine names them */
    public ConsoleDatabase(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The database's clock: the job search's window ends at it, and confirmations pin the dead
     * letters they counted to before this instant.
     */
    public Instant databaseNow() {
        return list("SELECT clock_timestamp()", ps -> {}, rs -> instant(rs, 1)).get(0);
    }

    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    interface Mapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    interface SqlCall<T> {
        T apply(Connection c) throws SQLException;
    }

    /** The rows of one statement, each mapped. */
    <T> List<T> list(String sql, Binder binder, Mapper<T> mapper) {
        return call(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                List<T> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(mapper.map(rs));
                    }
                }
                return out;
            }
        });
    }

    /** Runs statements on one connection in auto-commit mode. */
    <T> T call(SqlCall<T> call) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return call.apply(c);
        } catch (SQLException e) {
            throw new IllegalStateException("Postbox console query failed: " + e.getMessage(), e);
        }
    }

    static void bind(PreparedStatement ps, List<Object> params) throws SQLException {
        int i = 1;
        for (Object p : params) {
            ps.setObject(i++, p);
        }
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getTimestamp(column).toInstant();
    }

    static @Nullable Instant nullableInstant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    static List<String> strings(@Nullable Array array) throws SQLException {
        if (array == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Object v : (Object[]) array.getArray()) {
            out.add((String) v);
        }
        return out;
    }
}
