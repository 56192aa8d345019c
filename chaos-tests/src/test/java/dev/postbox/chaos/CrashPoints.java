package dev.postbox.chaos;

import dev.postbox.Job;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/**
 * The worker's observation points and named crash points. Every handler start prints a {@code
 * START <job id> <kind>} marker (the harness counts attempts that really started from these, not
 * from Postbox's tables). A worker incarnation may be armed with one crash point and a delay: at
 * the point's first event after the delay (counted from the worker's first handler start) it
 * prints {@code CRASHPOINT <point>} and halts the JVM at once
 * ({@code Runtime.halt}, no shutdown hooks, like a power cut at that line) with the point's own
 * exit status, so the driver knows which point fired without reading the log.
 *
 * <ul>
 *   <li>{@code after-start}: the handler has started (its attempt may be recorded as started) and
 *       done nothing yet;
 *   <li>{@code after-handler}: the handler (or the HTTP call) returned, the completion is not
 *       written;
 *   <li>{@code before-commit} / {@code after-commit}: around the completion statement when it runs
 *       on its own (batched completions), or around the commit of a transactional handler's
 *       transaction that ran it.
 * </ul>
 *
 * The completion points find Postbox's completion statement through a {@link DataSource} proxy, by
 * the marker {@value #FINISH_MARKER} that outbox-core puts at its start, not by its SQL text: a
 * rewrite of the statement keeps them armed, and a run whose points fire fewer times than its
 * coverage asks for fails.
 */
final class CrashPoints {

    /** The marker at the start of Postbox's completion statement (outbox-core {@code JobStore}). */
    static final String FINISH_MARKER = "/* postbox:finish */";

    /** The crash points, each with its exit status. */
    enum Point {
        AFTER_START("after-start", 91),
        AFTER_HANDLER("after-handler", 92),
        BEFORE_COMMIT("before-commit", 93),
        AFTER_COMMIT("after-commit", 94);

        final String label;
        final int exitStatus;

        Point(String label, int exitStatus) {
            this.label = label;
            this.exitStatus = exitStatus;
        }

        static Point byLabel(String label) {
            for (Point p : values()) {
                if (p.label.equals(label)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("no crash point '" + label + "'");
        }

        /** The point whose halt exits with {@code status}, or null. */
        static Point byExitStatus(int status) {
            for (Point p : values()) {
                if (p.exitStatus == status) {
                    return p;
                }
            }
            return null;
        }
    }

    private final Point armed;
    private final long afterNanos;
    private final String kind;
    private volatile long firstStartNanos;

    CrashPoints(Point armed, long afterMillis) {
        this(armed, afterMillis, null);
    }

    /** {@code kind}: the job point fires only at an event of a job of that kind (null: any job). */
    CrashPoints(Point armed, long afterMillis, String kind) {
        this.armed = armed;
        this.afterNanos = afterMillis * 1_000_000L;
        this.kind = kind;
    }

    /**
     * From {@code -Dchaos.crash.point=<label>} and {@code -Dchaos.crash.afterMs=<ms>}: the point halts
     * at its first event at least that long after this worker started its first handler; with {@code
     * -Dchaos.crash.kind=<job kind>} a job point fires only at a job of that kind (a broker relay's:
     * {@code after-handler} is then between the broker's acknowledgement and the completion). Unarmed
     * without.
     */
    static CrashPoints fromSystemProperties() {
        String point = System.getProperty("chaos.crash.point", "");
        String kind = System.getProperty("chaos.crash.kind", "");
        return point.isBlank()
                ? new CrashPoints(null, 0)
                : new CrashPoints(
                        Point.byLabel(point), Long.getLong("chaos.crash.afterMs", 0), kind.isBlank() ? null : kind);
    }

    String armedLabel() {
        return armed == null
                ? "none"
                : armed.label + "@" + afterNanos / 1_000_000 + "ms" + (kind == null ? "" : " on " + kind);
    }

    /** A handler started: the marker, then the {@code after-start} point. */
    void started(Job job) {
        System.out.println("START " + job.id() + " " + job.kind());
        if (firstStartNanos == 0) {
            firstStartNanos = System.nanoTime();
        }
        jobEvent(Point.AFTER_START, job);
    }

    /** The handler returned (a broker relay's: the broker acknowledged); the completion is not written. */
    void afterHandler(Job job) {
        jobEvent(Point.AFTER_HANDLER, job);
    }

    private void jobEvent(Point point, Job job) {
        if (kind == null || kind.equals(job.kind())) {
            event(point, job.id() + " kind=" + job.kind());
        }
    }

    private void event(Point point, Object job) {
        if (point == armed && firstStartNanos != 0 && System.nanoTime() - firstStartNanos >= afterNanos) {
            System.out.println("CRASHPOINT " + point.label + " job=" + job);
            System.out.flush();
            Runtime.getRuntime().halt(point.exitStatus);
        }
    }

    /** Wraps the worker's DataSource when a completion point is armed. */
    DataSource wrap(DataSource target) {
        if (armed != Point.BEFORE_COMMIT && armed != Point.AFTER_COMMIT) {
            return target;
        }
        return proxy(DataSource.class, (proxy, method, args) -> {
            Object result = invoke(target, method, args);
            return result instanceof Connection c ? connection(c) : result;
        });
    }

    private Connection connection(Connection target) {
        boolean[] finishInTransaction = {false};
        return proxy(Connection.class, (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("prepareStatement") && args[0] instanceof String sql && sql.startsWith(FINISH_MARKER)) {
                return finishStatement((PreparedStatement) invoke(target, method, args), target, finishInTransaction);
            }
            if (name.equals("commit") && finishInTransaction[0]) {
                finishInTransaction[0] = false;
                event(Point.BEFORE_COMMIT, -1);
                Object r = invoke(target, method, args);
                event(Point.AFTER_COMMIT, -1);
                return r;
            }
            if (name.equals("rollback") || name.equals("close")) {
                finishInTransaction[0] = false;
            }
            return invoke(target, method, args);
        });
    }

    private PreparedStatement finishStatement(
            PreparedStatement target, Connection connection, boolean[] finishInTransaction) {
        return proxy(PreparedStatement.class, (proxy, method, args) -> {
            if (!method.getName().equals("executeQuery") || (args != null && args.length > 0)) {
                return invoke(target, method, args);
            }
            if (!connection.getAutoCommit()) {
                finishInTransaction[0] = true; // the points fire around the transaction's commit
                return invoke(target, method, args);
            }
            event(Point.BEFORE_COMMIT, -1);
            Object r = invoke(target, method, args);
            event(Point.AFTER_COMMIT, -1);
            return r;
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return (T) Proxy.newProxyInstance(CrashPoints.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
