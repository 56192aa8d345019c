package dev.postbox.testing;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import javax.sql.DataSource;

/**
 * A {@code DataSource} whose connections only describe themselves: a product name and a version,
 * as another database (or an old PostgreSQL) would report them. It stands in for a database that
 * Postbox must refuse before it runs a single statement; any other call fails the test.
 */
public final class ForeignDatabase {

    private ForeignDatabase() {}

    /** A DataSource reporting e.g. {@code ("H2", "2.3.232 (2024-08-11)", 2)}. */
    public static DataSource dataSource(String product, String version, int majorVersion) {
        DatabaseMetaData meta = proxy(DatabaseMetaData.class, (name, args) -> switch (name) {
            case "getDatabaseProductName" -> product;
            case "getDatabaseProductVersion" -> version;
            case "getDatabaseMajorVersion" -> majorVersion;
            case "getURL" -> "jdbc:" + product.toLowerCase(java.util.Locale.ROOT) + ":mem:test";
            default -> throw new UnsupportedOperationException(product + " stand-in: " + name);
        });
        Connection connection = proxy(Connection.class, (name, args) -> switch (name) {
            case "getMetaData" -> meta;
            case "close" -> null;
            case "isClosed" -> false;
            default -> throw new UnsupportedOperationException(product + " stand-in: " + name);
        });
        return proxy(DataSource.class, (name, args) -> switch (name) {
            case "getConnection" -> connection;
            default -> throw new UnsupportedOperationException(product + " stand-in: " + name);
        });
    }

    private interface Answer {
        Object answer(String method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(
                ForeignDatabase.class.getClassLoader(),
                new Class<?>[] {type},
                (p, method, args) -> switch (method.getName()) {
                    case "toString" -> type.getSimpleName() + " stand-in";
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> answer.answer(method.getName(), args);
                }));
    }
}
