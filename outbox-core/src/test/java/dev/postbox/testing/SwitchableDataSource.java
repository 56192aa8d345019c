package dev.postbox.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@code DataSource} whose connections can be cut off, to play a process that dies (SIGKILL: it
 * never writes again, its leases expire) or loses the database for a while. While cut off, {@link
 * #getConnection()} fails and so does every call on a connection handed out before (except closing
 * it), as on a process whose sockets are gone. Real PostgreSQL behind it throughout.
 */
public final class SwitchableDataSource implements DataSource {

    private static final Set<String> ALWAYS_ALLOWED = Set.of("close", "isClosed", "hashCode", "equals", "toString");

    private final DataSource delegate;
    private volatile boolean cutOff;

    public SwitchableDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    /** From now on, nothing reaches the database through this data source. */
    public void cutOff() {
        cutOff = true;
    }

    /** The database is reachable again. */
    public void reconnect() {
        cutOff = false;
    }

    private void check() throws SQLException {
        if (cutOff) {
            throw new SQLTransientConnectionException("database unreachable (cut off by the test)", "08006");
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        check();
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        check();
        return wrap(delegate.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (!ALWAYS_ALLOWED.contains(method.getName())) {
                        check();
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }
}
