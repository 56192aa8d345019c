package dev.postbox.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The floor of the steady state (scenario floor-steady): a minimal queue table, the producers' bare
 * row insert, a coalesced NOTIFY after commits, and the consumer's {@code FOR UPDATE SKIP LOCKED}
 * claim and delete. What any LISTEN/NOTIFY queue on this database needs at the least.
 */
final class FloorQueue {

    static final String TABLE = "floor_queue";
    static final String CHANNEL = "floor_queue";
    /** The same coalescing as Postbox's notifier (its default {@code notifyInterval}). */
    static final long NOTIFY_INTERVAL_MS = 2;

    static final String DDL = "CREATE TABLE " + TABLE + " (id bigserial PRIMARY KEY, payload jsonb NOT NULL)";
    private static final String INSERT = "INSERT INTO " + TABLE + " (payload) VALUES (?::jsonb)";
    static final String CLAIM =
            "SELECT id, payload::text FROM " + TABLE + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
    static final String DELETE = "DELETE FROM " + TABLE + " WHERE id = ANY(?)";

    private FloorQueue() {}

    static void createTable(DataSource ds) throws SQLException {
        Fixtures.execute(ds, DDL);
    }

    /** The bare intent: one row with the same payload as the Postbox job of the steady state. */
    static void insert(Connection c, int seq, long order) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setString(1, "{\"seq\": " + seq + ", \"orderId\": " + order + "}");
            ps.executeUpdate();
        }
    }

    /** Sends {@code NOTIFY floor_queue} from a connection of its own, at most once per interval. */
    static final class Notifier implements AutoCloseable {

        private final AtomicBoolean pending = new AtomicBoolean();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private volatile SQLException failure;

        private Notifier(DataSource ds) {
            thread = new Thread(
                    () -> {
                        try (Connection c = ds.getConnection();
                                Statement s = c.createStatement()) {
                            c.setAutoCommit(true);
                            while (!stop.get()) {
                                if (pending.getAndSet(false)) {
                                    s.execute("NOTIFY " + CHANNEL);
                                }
                                LockSupport.parkNanos(NOTIFY_INTERVAL_MS * 1_000_000L);
                            }
                        } catch (SQLException e) {
                            failure = e;
                        }
                    },
                    "floor-notifier");
            thread.setDaemon(true);
        }

        static Notifier start(DataSource ds) {
            Notifier n = new Notifier(ds);
            n.thread.start();
            return n;
        }

        void committed() throws SQLException {
            if (failure != null) {
                throw failure;
            }
            pending.set(true);
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join();
        }
    }

    /** Claims up to {@code batch} rows, calls {@code handler} with each payload, deletes them, commits. */
    static int claimAndDelete(Connection c, int batch, PayloadHandler handler) throws SQLException {
        Long[] ids;
        try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
            ps.setInt(1, batch);
            java.util.List<Long> claimed = new java.util.ArrayList<>(batch);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed.add(rs.getLong(1));
                    handler.handle(rs.getString(2));
                }
            }
            ids = claimed.toArray(new Long[0]);
        }
        if (ids.length > 0) {
            try (PreparedStatement ps = c.prepareStatement(DELETE)) {
                ps.setArray(1, c.createArrayOf("bigint", ids));
                ps.executeUpdate();
            }
        }
        c.commit();
        return ids.length;
    }

    @FunctionalInterface
    interface PayloadHandler {
        void handle(String payload);
    }
}
