package dev.postbox.internal;

import dev.postbox.SchemaInstaller;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionProxy;

/**
 * The one place where Postbox's statements are qualified for a configured schema ({@code
 * postbox.schema.name}), just before they are prepared or executed: every bare mention of one of
 * Postbox's own objects ({@link #NAMES}: what its migrations create, plus the installer's history
 * table) becomes {@code "schema".name}, and a string literal that is exactly such a name ({@code
 * nextval('outbox_job_id_seq')}, {@code to_regclass('outbox_installation')}) becomes {@code
 * '"schema".name'}. Nothing else changes: string literals, quoted identifiers, comments and
 * dollar-quoted bodies are skipped, and a name next to a dot ({@code outbox_endpoint.url}, a column
 * of the statement's table, or one already qualified) is left as it is. The result is cached per
 * statement text, so the rewrite costs one map lookup per statement after the first.
 *
 * <p>Applied by {@link QualifyingDataSource} to every statement of its connections, and by {@link
 * #connection} to a connection of the caller's transaction (Spring hands that one out unwrapped).
 */
public final class SchemaQualifier {

    private static final Pattern CREATED = Pattern.compile("(?i)\\bCREATE\\s+(?:OR\\s+REPLACE\\s+)?"
            + "(?:UNLOGGED\\s+)?(?:MATERIALIZED\\s+)?(?:TABLE|VIEW|SEQUENCE|FUNCTION|PROCEDURE|TYPE|DOMAIN)\\s+"
            + "(?:IF\\s+NOT\\s+EXISTS\\s+)?([a-z_][a-z0-9_]*)");

    /** The installer's history table, which lives with the rest. */
    static final String INSTALLER_HISTORY = "outbox_schema_version";

    /**
     * Postbox's objects, as named by the shipped migrations ({@code CREATE TABLE|VIEW|SEQUENCE|
     * FUNCTION|TYPE ...}), plus {@value #INSTALLER_HISTORY}. A new migration's objects join
     * automatically.
     */
    public static final Set<String> NAMES = names();

    private static final int CACHE_LIMIT = 10_000;
    private static final ConcurrentMap<String, SchemaQualifier> BY_SCHEMA = new ConcurrentHashMap<>();

    private final String schema;
    private final String prefix;
    private final ConcurrentMap<String, String> cache = new ConcurrentHashMap<>();

    private SchemaQualifier(String schema) {
        this.schema = schema;
        this.prefix = '"' + schema + "\".";
    }

    /** The qualifier of a schema whose name {@code dev.postbox.PostboxSchema} has validated. */
    public static SchemaQualifier of(String schema) {
        return BY_SCHEMA.computeIfAbsent(schema, SchemaQualifier::new);
    }

    /** The schema's name (unquoted; validated, so quoting it never needs escapes). */
    public String schema() {
        return schema;
    }

    /** The schema's name quoted for SQL. */
    public String quoted() {
        return '"' + schema + '"';
    }

    private static Set<String> names() {
        Set<String> names = new TreeSet<>();
        for (SchemaInstaller.Migration m : SchemaInstaller.migrations()) {
            Matcher created = CREATED.matcher(m.sql().replaceAll("--[^\n]*", ""));
            while (created.find()) {
                names.add(created.group(1).toLowerCase(Locale.ROOT));
            }
        }
        names.add(INSTALLER_HISTORY);
        return Set.copyOf(names);
    }

    /** The statement with Postbox's objects qualified for the schema. */
    public String qualify(String sql) {
        String qualified = cache.get(sql);
        if (qualified == null) {
            qualified = rewrite(sql);
            if (cache.size() < CACHE_LIMIT) {
                cache.put(sql, qualified);
            }
        }
        return qualified;
    }

    private String rewrite(String sql) {
        StringBuilder out = new StringBuilder(sql.length() + 64);
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char ch = sql.charAt(i);
            char next = i + 1 < n ? sql.charAt(i + 1) : '\0';
            int end;
            if (ch == '\'') {
                end = endOfLiteral(sql, i, escapeString(sql, i));
                String content = sql.substring(i + 1, end - 1);
                if (NAMES.contains(content)) {
                    out.append('\'').append(prefix).append(content).append('\'');
                    i = end;
                    continue;
                }
            } else if (ch == '"') {
                end = endOfLiteral(sql, i, false);
            } else if (ch == '-' && next == '-') {
                int eol = sql.indexOf('\n', i);
                end = eol < 0 ? n : eol;
            } else if (ch == '/' && next == '*') {
                int close = sql.indexOf("*/", i + 2);
                end = close < 0 ? n : close + 2;
            } else if (ch == '$' && dollarTagEnd(sql, i) > 0) {
                String tag = sql.substring(i, dollarTagEnd(sql, i));
                int close = sql.indexOf(tag, i + tag.length());
                end = close < 0 ? n : close + tag.length();
            } else if (identifierStart(ch)) {
                end = i + 1;
                while (end < n && identifierPart(sql.charAt(end))) {
                    end++;
                }
                boolean nextToDot = (i > 0 && sql.charAt(i - 1) == '.') || (end < n && sql.charAt(end) == '.');
                if (!nextToDot && NAMES.contains(sql.substring(i, end).toLowerCase(Locale.ROOT))) {
                    out.append(prefix);
                }
            } else if (Character.isDigit(ch)) {
                end = i + 1;
                while (end < n && (identifierPart(sql.charAt(end)) || sql.charAt(end) == '.')) {
                    end++;
                }
            } else {
                end = i + 1;
            }
            out.append(sql, i, end);
            i = end;
        }
        return out.toString();
    }

    /** An {@code E'...'} string, in which a backslash escapes the next character. */
    private static boolean escapeString(String sql, int quote) {
        if (quote == 0) {
            return false;
        }
        char e = sql.charAt(quote - 1);
        return (e == 'E' || e == 'e') && (quote < 2 || !identifierPart(sql.charAt(quote - 2)));
    }

    /** The index after the closing quote of a literal or quoted identifier (a doubled quote is part of it). */
    private static int endOfLiteral(String sql, int open, boolean backslashEscapes) {
        char quote = sql.charAt(open);
        int n = sql.length();
        int i = open + 1;
        while (i < n) {
            char ch = sql.charAt(i);
            if (backslashEscapes && ch == '\\') {
                i += 2;
            } else if (ch == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return n;
    }

    /** The index after a dollar-quote tag ({@code $$}, {@code $body$}) starting at {@code i}; 0 if none. */
    private static int dollarTagEnd(String sql, int i) {
        if (i > 0 && identifierPart(sql.charAt(i - 1))) {
            return 0; // part of an identifier such as a$b
        }
        int j = i + 1;
        while (j < sql.length() && (identifierStart(sql.charAt(j)) || Character.isDigit(sql.charAt(j)))) {
            if (j == i + 1 && Character.isDigit(sql.charAt(j))) {
                return 0; // $1: a positional parameter
            }
            j++;
        }
        return j < sql.length() && sql.charAt(j) == '$' ? j + 1 : 0;
    }

    private static boolean identifierStart(char ch) {
        return Character.isLetter(ch) || ch == '_';
    }

    private static boolean identifierPart(char ch) {
        return Character.isLetterOrDigit(ch) || ch == '_' || ch == '$';
    }

    /** Runs the work on a connection of {@code dataSource} whose search_path is the schema, in one transaction. */
    public <T> T inSchema(DataSource unqualified, Transactions.Work<T> work) throws SQLException {
        try (Connection c = unqualified.getConnection()) {
            return Transactions.call(c, tx -> {
                useLocally(tx);
                return work.run(tx);
            });
        }
    }

    /**
     * Sets the schema as the search_path of the current transaction of {@code c} (for running
     * migration scripts as they are; never on a connection of the caller).
     */
    public void useLocally(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('search_path', ?, true)")) {
            ps.setString(1, quoted());
            ps.execute();
        }
    }

    /** A connection that qualifies every statement it prepares or executes; itself if it does already. */
    public Connection connection(Connection target) {
        if (Proxy.isProxyClass(target.getClass())
                && Proxy.getInvocationHandler(target) instanceof Qualifying q
                && q.qualifier == this) {
            return target;
        }
        return (Connection) Proxy.newProxyInstance(
                SchemaQualifier.class.getClassLoader(),
                new Class<?>[] {ConnectionProxy.class},
                new Qualifying(this, target, null));
    }

    /** Methods of Connection and Statement whose first argument is a statement's text. */
    private static final Set<String> SQL_METHODS = Set.of(
            "prepareStatement",
            "prepareCall",
            "nativeSQL",
            "execute",
            "executeQuery",
            "executeUpdate",
            "executeLargeUpdate",
            "addBatch");

    /** The handler of a qualifying connection or of a statement it created. */
    private static final class Qualifying implements InvocationHandler {
        private final SchemaQualifier qualifier;
        private final Object target;
        private final @Nullable Connection connection;

        Qualifying(SchemaQualifier qualifier, Object target, @Nullable Connection connection) {
            this.qualifier = qualifier;
            this.target = target;
            this.connection = connection;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
            String name = method.getName();
            switch (name) {
                case "equals":
                    return args != null && proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "Postbox (schema " + qualifier.schema + ") " + target;
                case "getTargetConnection":
                    return target;
                case "getConnection":
                    if (connection != null) {
                        return connection;
                    }
                    break;
                case "unwrap":
                    if (args != null && args[0] instanceof Class<?> type && type.isInstance(proxy)) {
                        return proxy;
                    }
                    break;
                case "isWrapperFor":
                    if (args != null && args[0] instanceof Class<?> type && type.isInstance(proxy)) {
                        return true;
                    }
                    break;
                default:
                    if (args != null
                            && args.length > 0
                            && args[0] instanceof String sql
                            && SQL_METHODS.contains(name)) {
                        args[0] = qualifier.qualify(sql);
                    }
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                throw cause == null ? e : cause;
            }
            if (name.equals("createStatement") && result instanceof Statement statement) {
                return Proxy.newProxyInstance(
                        SchemaQualifier.class.getClassLoader(),
                        new Class<?>[] {Statement.class},
                        new Qualifying(qualifier, statement, (Connection) proxy));
            }
            return result;
        }
    }
}
