package dev.postbox.benchmarks;

import dev.postbox.JsonCodec;
import dev.postbox.internal.ClaimStore;
import dev.postbox.internal.GenericPlans;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Records the SQL and parameter bindings of the first statement the engine's own code prepares,
 * without running it, so that the floor and the EXPLAIN run exactly the engine's statement with
 * exactly its parameters, whatever they are in this version of the engine.
 */
final class StatementCapture {

    /** The engine code to observe, e.g. {@code c -> claims.claim(c, ...)}. */
    @FunctionalInterface
    interface Action {
        void run(Connection connection) throws SQLException;
    }

    record Call(Method method, Object[] args) {}

    /**
     * The statement (without the engine's {@link GenericPlans#PREFIX}) and its bindings; {@code
     * genericPlan} when the engine sends it after that prefix.
     */
    record Captured(String sql, boolean genericPlan, List<Call> bindings) {

        /** Prepares {@code prefix + sql} on {@code c} with the recorded bindings (e.g. an EXPLAIN). */
        PreparedStatement prepare(Connection c, String prefix) throws SQLException {
            PreparedStatement ps = c.prepareStatement(prefix + sql);
            bind(ps);
            return ps;
        }

        /** Prepares the statement as the engine sends it, with the recorded bindings. */
        PreparedStatement prepareAsEngine(Connection c) throws SQLException {
            return prepare(c, genericPlan ? GenericPlans.PREFIX : "");
        }

        /** Runs a statement of {@link #prepareAsEngine} as the engine does; returns its rows. */
        ResultSet query(PreparedStatement ps) throws SQLException {
            return genericPlan ? GenericPlans.executeQuery(ps) : ps.executeQuery();
        }

        void bind(PreparedStatement ps) throws SQLException {
            for (Call call : bindings) {
                try {
                    call.method().invoke(ps, call.args());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                } catch (InvocationTargetException e) {
                    if (e.getCause() instanceof SQLException s) {
                        throw s;
                    }
                    throw new IllegalStateException(e.getCause());
                }
            }
        }
    }

    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }

    private StatementCapture() {}

    /**
     * The engine's claim statement for {@code batch} jobs of the default queue, with its bindings. A
     * new {@link ClaimStore} reads the schema installation with its first statement, so one real claim
     * (rolled back) goes first and the capture sees the claim itself.
     */
    static Captured claim(Connection c, int batch, String workerId) throws SQLException {
        ClaimStore claims = new ClaimStore(JsonCodec.jackson());
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            claims.claim(c, "default", 1, workerId, Duration.ofSeconds(30));
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
        // The overload with the tenants given: the short one first asks which tenants have work (its
        // own statement), and the claim statement is the one after it.
        List<ClaimStore.TenantRoom> defaultTenant = List.of(ClaimStore.TenantRoom.uncapped(""));
        return capture(
                c,
                spy -> claims.claim(
                        spy,
                        "default",
                        defaultTenant,
                        new int[] {batch, batch, batch},
                        true,
                        batch,
                        workerId,
                        Duration.ofSeconds(30)));
    }

    static Captured capture(Connection real, Action action) throws SQLException {
        String[] sql = new String[1];
        List<Call> bindings = new ArrayList<>();
        InvocationHandler statement = (proxy, method, args) -> {
            String name = method.getName();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer) {
                bindings.add(new Call(method, args));
                return null;
            }
            if (name.startsWith("execute")) {
                throw new Stop();
            }
            if (name.equals("close")) {
                return null;
            }
            throw new UnsupportedOperationException("capture: PreparedStatement." + name);
        };
        InvocationHandler connection = (proxy, method, args) -> {
            if (method.getName().equals("prepareStatement") && sql[0] == null) {
                sql[0] = (String) args[0];
                return Proxy.newProxyInstance(
                        StatementCapture.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, statement);
            }
            try {
                return method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        Connection spy = (Connection) Proxy.newProxyInstance(
                StatementCapture.class.getClassLoader(), new Class<?>[] {Connection.class}, connection);
        try {
            action.run(spy);
        } catch (Stop expected) {
            String bare = GenericPlans.withoutPrefix(sql[0]);
            return new Captured(bare, !bare.equals(sql[0]), bindings);
        }
        throw new IllegalStateException("the action executed no statement");
    }
}
