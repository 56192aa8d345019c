package dev.postbox.spring;

import dev.postbox.SchemaInstaller;
import dev.postbox.spring.internal.EmbeddedDatabases;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies Postbox's migrations at startup as {@code postbox.schema.initialize} says. It is a
 * database initializer in Spring Boot's sense: beans that depend on database initialization
 * ({@code @DependsOnDatabaseInitialization}, {@code JdbcTemplate}, JPA, the {@code Postbox} bean)
 * are created after it, and it runs after Flyway and Liquibase.
 */
public class PostboxSchemaInitializer implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(PostboxSchemaInitializer.class);

    private final DataSource dataSource;
    private final PostboxProperties.SchemaInitialization mode;

    public PostboxSchemaInitializer(DataSource dataSource, PostboxProperties.SchemaInitialization mode) {
        this.dataSource = dataSource;
        this.mode = mode;
    }

    @Override
    public void afterPropertiesSet() {
        initialize();
    }

    /** Applies missing migrations if the mode asks for it; returns the versions applied. */
    public List<Integer> initialize() {
        if (!shouldInitialize()) {
            log.debug("Postbox schema not initialized (postbox.schema.initialize={})", mode);
            return List.of();
        }
        List<Integer> applied = new SchemaInstaller(dataSource).install();
        if (!applied.isEmpty()) {
            log.info("Postbox schema: applied migrations {}", applied);
        }
        return applied;
    }

    private boolean shouldInitialize() {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> EmbeddedDatabases.isEmbedded(dataSource);
        };
    }
}
