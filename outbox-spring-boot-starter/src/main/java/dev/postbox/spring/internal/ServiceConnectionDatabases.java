package dev.postbox.spring.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Tells whether a {@code DataSource} is a Testcontainers database that Spring Boot connected through
 * {@code @ServiceConnection}: a {@code JdbcConnectionDetails} bean made from a container (Boot's
 * {@code ContainerConnectionDetails}) whose JDBC URL is the one the {@code DataSource} connects to.
 * Boot 3 and 4 keep {@code JdbcConnectionDetails} in different packages; {@link JdbcConnectionUrls}
 * (one per Spring Boot line) reads them.
 * Such a database is as disposable as an embedded one, so {@code postbox.schema.initialize=embedded}
 * gives it the schema without any setup in the test.
 */
public final class ServiceConnectionDatabases {

    static final String CONTAINER_CONNECTION_DETAILS = "org.springframework.boot.testcontainers.service.connection"
            + ".ContainerConnectionDetailsFactory$ContainerConnectionDetails";

    private static final Logger log = LoggerFactory.getLogger(ServiceConnectionDatabases.class);

    private ServiceConnectionDatabases() {}

    public static boolean isContainer(DataSource dataSource, ListableBeanFactory beanFactory) {
        Class<?> containerDetails = containerDetailsType();
        if (containerDetails == null) {
            return false;
        }
        String url = null;
        for (String containerUrl : JdbcConnectionUrls.of(beanFactory, containerDetails)) {
            if (url == null) {
                url = urlOf(dataSource);
                if (url == null) {
                    return false;
                }
            }
            if (withoutQuery(containerUrl).equals(withoutQuery(url))) {
                return true;
            }
        }
        return false;
    }

    private static @Nullable Class<?> containerDetailsType() {
        ClassLoader classLoader = ServiceConnectionDatabases.class.getClassLoader();
        if (!ClassUtils.isPresent(CONTAINER_CONNECTION_DETAILS, classLoader)) {
            return null;
        }
        return ClassUtils.resolveClassName(CONTAINER_CONNECTION_DETAILS, classLoader);
    }

    private static @Nullable String urlOf(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return c.getMetaData().getURL();
        } catch (SQLException | RuntimeException e) {
            log.debug("Could not read the JDBC URL of the DataSource", e);
            return null;
        }
    }

    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query);
    }
}
