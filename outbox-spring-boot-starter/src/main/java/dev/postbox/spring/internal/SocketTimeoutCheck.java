package dev.postbox.spring.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.PostboxSchema;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Whether the worker's connections give up on a silent network. Behind a network black hole (no
 * RST, no FIN) a PostgreSQL JDBC connection without a socket timeout waits for an answer for as long
 * as the operating system keeps retransmitting (about 15 minutes on Linux): the worker's threads
 * hang there, and it keeps its claimed jobs in memory, although the server ends its transactions
 * (Postbox bounds how long they stay idle) and other workers rescue the jobs. Only HikariCP pools
 * (Spring Boot's default) are checked: the driver's {@code socketTimeout} in the JDBC URL or in the
 * pool's data source properties.
 */
final class SocketTimeoutCheck {

    private static final boolean HIKARI_PRESENT =
            ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", SocketTimeoutCheck.class.getClassLoader());

    private SocketTimeoutCheck() {}

    /**
     * The advice to log (at INFO) when the HikariCP pool behind {@code dataSource} sets no socket
     * timeout. Not a warning: the server already frees a cut-off worker's jobs, and Spring Boot's
     * default pool sets none, so every new application would start with one.
     */
    static Optional<String> advice(DataSource dataSource) {
        HikariDataSource hikari = HIKARI_PRESENT ? hikari(PostboxSchema.unqualified(dataSource)) : null;
        if (hikari == null || hasSocketTimeout(hikari)) {
            return Optional.empty();
        }
        return Optional.of("Postbox's DataSource pool sets no socket timeout: a worker cut off from PostgreSQL"
                + " by a silent network (no reset) waits on its connections for as long as the operating system"
                + " retransmits, holding its claimed jobs in memory meanwhile (the server frees them; other"
                + " workers run them). Set spring.datasource.hikari.data-source-properties.socketTimeout (seconds,"
                + " longer than the longest statement the application runs on this pool, e.g. 30) and"
                + " tcpKeepAlive=true; see docs/operations.md, \"When the database goes away\".");
    }

    private static boolean hasSocketTimeout(HikariDataSource hikari) {
        String url = hikari.getJdbcUrl();
        if (url != null && url.toLowerCase(Locale.ROOT).matches(".*[?&]sockettimeout=[1-9].*")) {
            return true;
        }
        String property = hikari.getDataSourceProperties().getProperty("socketTimeout");
        return property != null && property.trim().matches("[1-9][0-9]*");
    }

    private static @Nullable HikariDataSource hikari(DataSource dataSource) {
        try {
            return dataSource.isWrapperFor(HikariDataSource.class) ? dataSource.unwrap(HikariDataSource.class) : null;
        } catch (SQLException e) {
            return null; // a DataSource that cannot say: not checked
        }
    }
}
