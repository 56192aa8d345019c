package dev.postbox.internal;

import dev.postbox.PostboxSchema;
import dev.postbox.Require;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.springframework.core.InfrastructureProxy;

/**
 * Postbox's view of the application's {@code DataSource} when its tables live in a configured
 * schema ({@code dev.postbox.PostboxSchema#dataSource}): every connection it hands out qualifies
 * Postbox's statements ({@link SchemaQualifier}). It is an {@link InfrastructureProxy} of the
 * target, so Spring's transaction synchronisation treats the two as one resource: a transaction
 * bound to the application's {@code DataSource} is the one Postbox's enqueue joins (Spring then hands
 * out the transaction's own, unwrapped connection, which Postbox qualifies with {@link
 * SchemaQualifier#connection}).
 */
public final class QualifyingDataSource implements DataSource, InfrastructureProxy {

    private final DataSource target;
    private final PostboxSchema schema;
    private final SchemaQualifier qualifier;

    public QualifyingDataSource(DataSource target, PostboxSchema schema, SchemaQualifier qualifier) {
        this.target = Require.notNull(target, "target");
        this.schema = Require.notNull(schema, "schema");
        this.qualifier = Require.notNull(qualifier, "qualifier");
    }

    /** The schema this DataSource qualifies for. */
    public PostboxSchema schema() {
        return schema;
    }

    /** The application's {@code DataSource}. */
    @Override
    public DataSource getWrappedObject() {
        return target;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return qualifier.connection(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return qualifier.connection(target.getConnection(username, password));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || target.isWrapperFor(type);
    }

    @Override
    public String toString() {
        return "Postbox in schema " + qualifier.schema() + " of " + target;
    }
}
