package dev.postbox.spring.internal;

import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

/** The JDBC URLs of Spring Boot 4's {@link JdbcConnectionDetails} beans of one kind. */
final class JdbcConnectionUrls {

    private JdbcConnectionUrls() {}

    /** The URLs of the {@code JdbcConnectionDetails} beans that are instances of {@code kind}. */
    static List<String> of(ListableBeanFactory beanFactory, Class<?> kind) {
        return beanFactory.getBeansOfType(JdbcConnectionDetails.class).values().stream()
                .filter(kind::isInstance)
                .map(JdbcConnectionDetails::getJdbcUrl)
                .toList();
    }
}
