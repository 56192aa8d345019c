package dev.postbox.spring.internal;

import dev.postbox.spring.PostboxSchemaInitializer;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that {@link PostboxSchemaInitializer} beans initialize the database, so that
 * beans depending on database initialization wait for them. Ordered after Flyway and Liquibase.
 */
public final class PostboxDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(PostboxSchemaInitializer.class);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }
}
