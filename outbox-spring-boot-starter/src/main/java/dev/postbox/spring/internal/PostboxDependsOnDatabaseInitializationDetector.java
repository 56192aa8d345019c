package dev.postbox.spring.internal;

import dev.postbox.Postbox;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Makes the {@link Postbox} bean wait for every database initializer (Flyway, Liquibase, the Postbox
 * schema initializer, {@code spring.sql.init}), so the engine never starts on missing tables.
 */
public final class PostboxDependsOnDatabaseInitializationDetector
        extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(Postbox.class);
    }
}
