package dev.postbox.chaos;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.SplittableRandom;
import javax.sql.DataSource;

/**
 * Named crash points compiled into every worker and off by default. A run enables them per worker
 * incarnation (system properties chosen from the run's seed); when one fires it prints a marker
 * and halts the JVM at once, without shutdown hooks, like a power cut at that line.
 *
 * <ul>
 *   <li>{@code after-claim}: the job is claimed (lease held, attempt charged), the handler has not
 *       started;
 *   <li>{@code after-handler}: the handler (or the HTTP call) returned, the completion is not
 *       written;
 *   <li>{@code during-commit-before} / {@code during-commit-after}: around the completion
 *       statement (batched completions, auto-commit) or around the commit of a transactional
 *       handler's transaction that ran the completion.
 * </ul>
 *
 * The completion points work through a {@link DataSource} proxy that recognises Postbox's finish
 * statement, so outbox-core needs no hook.
 */
final class CrashPoints {

    static final int HALT_STATUS = 99;
    static final String AFTER_CLAIM = "after-claim";
    static final String AFTER_HANDLER = "after-handler";
    static final String DURING_COMMIT = "during-commit";

    private final SplittableRandom random;
    private final double afterClaim;
    private final double afterHandler;
    private final double duringCommit;

    CrashPoints(long seed, double afterClaim, double afterHandler, double duringCommit) {
        this.random = new SplittableRandom(seed);
        this.afterClaim = afterClaim;
        this.afterHandler = afterHandler;
        this.duringCommit = duringCommit;
    }

    static CrashPoints fromSystemProperties(long seed) {
        return new CrashPoints(
                seed,
                Double.parseDouble(System.getProperty("chaos.crash.afterClaim", "0")),
                Double.parseDouble(System.getProperty("chaos.crash.afterHandler", "0")),
                Double.parseDouble(System.getProperty("chaos.crash.duringCommit", "0")));
    }

    boolean enabled() {
        return afterClaim > 0 || afterHandler > 0 || duringCommit > 0;
    }

    void afterClaim(long jobId) {
        maybeHalt(afterClaim, AFTER_CLAIM, jobId);
    }

    void afterHandler(long jobId) {
        maybeHalt(afterHandler, AFTER_HANDLER, jobId);
    }

    private void maybeHalt(double probability, String point, long jobId) {
        if (probability <= 0) {
            return;
        }
        boolean hit;
        synchronized (random) {
            hit = random.nextDouble() < probability;
        }
        if (hit) {
            halt(point, jobId);
        }
    }

    static void halt(String point, long jobId) {
        System.out.println("CRASHPOINT " + point + " job=" + jobId);
        System.out.flush();
        Runtime.getRuntime().halt(HALT_STATUS);
    }

    /** Wraps the worker's DataSource so that the completion statement and its commit can crash. */
    DataSource wrap(DataSource target) {
        if (duringCommit <= 0) {
            return target;
        }
        return (DataSource) Proxy.newProxyInstance(
                CrashPoints.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (result instanceof Connection c) {
                        return connection(c);
                    }
                    return result;
                });
    }

    private Connection connection(Connection target) {
        boolean[] finishInTransaction = {false};
        InvocationHandler h = (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("prepareStatement") && args != null && args[0] instanceof String sql && isFinish(sql)) {
                PreparedStatement ps = (PreparedStatement) invoke(target, method, args);
                return statement(ps, target, finishInTransaction);
            }
            if ((name.equals("commit")) && finishInTransaction[0]) {
                finishInTransaction[0] = false;
                maybeHalt(duringCommit / 2, DURING_COMMIT + "-before", -1);
                Object r = invoke(target, method, args);
                maybeHalt(duringCommit / 2, DURING_COMMIT + "-after", -1);
                return r;
            }
            if (name.equals("rollback") || name.equals("close")) {
                finishInTransaction[0] = false;
            }
            return invoke(target, method, args);
        };
        return (Connection)
                Proxy.newProxyInstance(CrashPoints.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private PreparedStatement statement(PreparedStatement target, Connection connection, boolean[] finishInTx) {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getName().equals("executeQuery") && (args == null || args.length == 0)) {
                boolean autoCommit = connection.getAutoCommit();
                if (autoCommit) {
                    maybeHalt(duringCommit / 2, DURING_COMMIT + "-before", -1);
                }
                Object r = invoke(target, method, args);
                if (autoCommit) {
                    maybeHalt(duringCommit / 2, DURING_COMMIT + "-after", -1);
                } else {
                    finishInTx[0] = true;
                }
                return r;
            }
            return invoke(target, method, args);
        };
        return (PreparedStatement)
                Proxy.newProxyInstance(CrashPoints.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, h);
    }

    /** Postbox's finish statement: it moves jobs with matching tokens to the archive. */
    private static boolean isFinish(String sql) {
        return sql.contains("DELETE FROM outbox_job j USING c") && sql.contains("INSERT INTO outbox_job_archive");
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
