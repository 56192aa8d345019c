package dev.postbox.testing;

import dev.postbox.internal.SchemaQualifier;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@code DataSource} that sees every statement text its connections prepare or execute, and every
 * failure that says a relation, function, type or schema was not found (SQLSTATE 42P01, 42883,
 * 42704, 3F000), the background duties' too (which only log them). Wrapped around the server's
 * {@code DataSource} under Postbox, it shows the statements exactly as Postbox sent them.
 */
public final class StatementRecorder extends DelegatingDataSource {

    private static final Set<String> NOT_FOUND = Set.of("42P01", "42883", "42704", "3F000");
    private static final Set<String> SQL_METHODS =
            Set.of("prepareStatement", "prepareCall", "execute", "executeQuery", "executeUpdate", "addBatch");

    private final Queue<String> statements = new ConcurrentLinkedQueue<>();
    private final Queue<String> notFound = new ConcurrentLinkedQueue<>();

    public StatementRecorder(DataSource target) {
        super(target);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(Connection.class, obtainTargetDataSource().getConnection(), "");
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(Connection.class, obtainTargetDataSource().getConnection(username, password), "");
    }

    /** Every statement text seen so far. */
    public List<String> statements() {
        return new ArrayList<>(statements);
    }

    /** The "not found" failures so far, each as {@code <message> in: <statement>}. */
    public List<String> notFound() {
        return new ArrayList<>(notFound);
    }

    /** Forgets what was seen (e.g. the installer's scripts, which run unqualified by design). */
    public void clear() {
        statements.clear();
        notFound.clear();
    }

    /** The statements that name one of Postbox's objects ({@link SchemaQualifier#NAMES}) bare, see below. */
    public List<String> unqualified() {
        return unqualified(SchemaQualifier.NAMES);
    }

    /**
     * The statements that name one of {@code names} bare: not after a dot (qualified) nor before one (a
     * column of the statement's table). A name in a string literal counts too ({@code
     * nextval('outbox_job_id_seq')} resolves through the search_path).
     */
    public List<String> unqualified(Collection<String> names) {
        List<Pattern> bare = names.stream()
                .map(n -> Pattern.compile("(?<![.\\w\"])" + Pattern.quote(n) + "(?![\\w.\"])"))
                .toList();
        return statements.stream()
                .filter(sql -> bare.stream().anyMatch(p -> p.matcher(sql).find()))
                .distinct()
                .toList();
    }

    private <T> T wrap(Class<T> type, T target, String sql) {
        return type.cast(Proxy.newProxyInstance(
                StatementRecorder.class.getClassLoader(), new Class<?>[] {type}, new Recording(target, sql)));
    }

    private final class Recording implements InvocationHandler {
        private final Object target;
        private final String sql;

        Recording(Object target, String sql) {
            this.target = target;
            this.sql = sql;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("equals")) {
                return proxy == args[0];
            }
            if (name.equals("hashCode")) {
                return System.identityHashCode(proxy);
            }
            String text = sql;
            if (args != null && args.length > 0 && args[0] instanceof String s && SQL_METHODS.contains(name)) {
                text = s;
                statements.add(s);
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SQLException failure && NOT_FOUND.contains(failure.getSQLState())) {
                    notFound.add(failure.getMessage() + " in: " + text);
                }
                throw e.getCause();
            }
            if (result instanceof CallableStatement call) {
                return wrap(CallableStatement.class, call, text);
            }
            if (result instanceof PreparedStatement prepared) {
                return wrap(PreparedStatement.class, prepared, text);
            }
            if (result instanceof Statement statement && name.equals("createStatement")) {
                return wrap(Statement.class, statement, text);
            }
            return result;
        }
    }
}
