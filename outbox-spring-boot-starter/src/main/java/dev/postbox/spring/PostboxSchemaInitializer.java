package dev.postbox.spring;

import dev.postbox.PostboxSchema;
import dev.postbox.SchemaInstaller;
import dev.postbox.SchemaVerifier;
import dev.postbox.spring.internal.BuiltInSchemaMigrator;
import dev.postbox.spring.internal.EmbeddedDatabases;
import dev.postbox.spring.internal.SchemaMigrator;
import dev.postbox.spring.internal.StartupRetry;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Makes sure Postbox's tables are there before anything uses them. At start-up it
 *
 * <ol>
 *   <li>refuses a database that is not PostgreSQL {@value SchemaVerifier#MINIMUM_POSTGRESQL_VERSION} or
 *       newer, naming what it found;
 *   <li>applies the missing migrations when {@code postbox.schema.initialize} says so ({@code
 *       always}; {@code embedded}: on an embedded or a Testcontainers {@code @ServiceConnection}
 *       database only), with Flyway and a history table of their own when the application uses
 *       Flyway, else with Postbox's installer;
 *   <li>fails when tables are still missing, with a message that names the missing migrations and
 *       the ways to apply them (the property, the Flyway location, the Liquibase change log). It
 *       never lets the application start on a database without them.
 * </ol>
 *
 * <p>It is a database initializer in Spring Boot's sense: beans that depend on database
 * initialization ({@code @DependsOnDatabaseInitialization}, {@code JdbcTemplate}, JPA, the {@code
 * Postbox} bean) are created after it, and it runs after the application's Flyway and Liquibase.
 */
public class PostboxSchemaInitializer implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(PostboxSchemaInitializer.class);

    private final DataSource dataSource;
    private final PostboxProperties.SchemaInitialization mode;
    private final SchemaMigrator migrator;
    private final Predicate<DataSource> disposable;

    /** With Postbox's installer, treating embedded databases (as Spring Boot detects them) as disposable. */
    public PostboxSchemaInitializer(DataSource dataSource, PostboxProperties.SchemaInitialization mode) {
        this(dataSource, mode, new BuiltInSchemaMigrator(), EmbeddedDatabases::isEmbedded);
    }

    PostboxSchemaInitializer(
            DataSource dataSource,
            PostboxProperties.SchemaInitialization mode,
            SchemaMigrator migrator,
            Predicate<DataSource> disposable) {
        this.dataSource = dataSource;
        this.mode = mode;
        this.migrator = migrator;
        this.disposable = disposable;
    }

    @Override
    public void afterPropertiesSet() {
        initialize();
    }

    /**
     * Checks the database, applies missing migrations if the mode asks for it, and fails when tables
     * are still missing; returns the versions applied. A connection lost on the way (the server
     * restarting, a connection cut) is retried a few times ({@link StartupRetry}); the installers are
     * safe to run again.
     */
    public List<Integer> initialize() {
        return StartupRetry.call("schema check", this::initializeOnce);
    }

    private List<Integer> initializeOnce() {
        SchemaVerifier verifier = new SchemaVerifier(dataSource);
        try {
            verifier.requireSupportedDatabase();
        } catch (IllegalStateException e) {
            if (StartupRetry.connectionLost(e)) {
                throw e;
            }
            // The whole message is kept; the check's own stack says nothing more.
            throw new IllegalStateException(e.getMessage() + " With several DataSources, name Postbox's with"
                    + " postbox.datasource or @PostboxDataSource; in a test profile, use PostgreSQL (embedded, or"
                    + " Testcontainers with @ServiceConnection) or set postbox.enabled=false.");
        }
        List<Integer> applied = List.of();
        if (shouldInstall()) {
            applied = migrator.migrate(dataSource);
            if (!applied.isEmpty()) {
                log.info("Postbox schema: applied migrations {} with {}", applied, migrator.describe(dataSource));
            }
        } else {
            log.debug("Postbox schema: not applying migrations (postbox.schema.initialize={})", mode);
        }
        List<SchemaInstaller.Migration> missing = verifier.missingMigrations();
        if (!missing.isEmpty()) {
            throw missingSchema(missing, verifier.missingObjects());
        }
        return applied;
    }

    private boolean shouldInstall() {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> disposable.test(dataSource);
        };
    }

    /** Names shown of the missing objects; the rest are counted. */
    private static final int OBJECTS_SHOWN = 5;

    private PostboxSchemaMissingException missingSchema(List<SchemaInstaller.Migration> missing, Set<String> objects) {
        String versions = missing.stream().map(m -> "V" + m.version()).collect(Collectors.joining(", "));
        String why = switch (mode) {
            case EMBEDDED ->
                "postbox.schema.initialize=embedded applies them only to an embedded or a"
                        + " Testcontainers (@ServiceConnection) database, and this one is neither";
            case NEVER -> "postbox.schema.initialize=never leaves them to you";
            case ALWAYS -> "they were applied with " + migrator.describe(dataSource) + " but are still missing";
        };
        String schema = PostboxSchema.of(dataSource)
                .name()
                .map(name -> " (schema " + name + ", postbox.schema.name; a Liquibase or Flyway of your own must run"
                        + " Postbox's files with " + name + " as its default schema)")
                .orElse("");
        List<String> shown = objects.stream().limit(OBJECTS_SHOWN).toList();
        String summary = String.join(", ", shown)
                + (objects.size() > shown.size() ? " and " + (objects.size() - shown.size()) + " more objects" : "");
        String description = "Postbox's tables are missing from its database" + schema + ": migrations " + versions
                + " of " + SchemaInstaller.LOCATION + " are not applied (missing: " + summary + ").\n" + why + ".";
        String action = "Apply them in one of these ways:\n"
                + "  - let Postbox apply them at start-up: postbox.schema.initialize=always (with Flyway in the"
                + " application they run through Flyway with their own history table postbox_schema_history,"
                + " else through Postbox's installer; both are safe when several instances start at once);\n"
                + "  - Liquibase: include the change log " + SchemaInstaller.LIQUIBASE_CHANGELOG
                + " in yours (<include file=\"" + SchemaInstaller.LIQUIBASE_CHANGELOG + "\"/>);\n"
                + "  - Flyway with your own history: add " + SchemaInstaller.LOCATION
                + " to spring.flyway.locations, only if your versions never collide with Postbox's V1, V2, ...;\n"
                + "  - or run the SQL files of " + SchemaInstaller.LOCATION + " (postbox-db jar) yourself.\n"
                + "See docs/schema.md.";
        // One short line: Spring repeats the message at every level of the bean creation chain.
        String message = "Postbox's migrations " + versions + " are not applied to its database (" + objects.size()
                + " objects missing; " + why + "). Apply them with postbox.schema.initialize=always, Liquibase,"
                + " Flyway or by hand: see docs/schema.md.";
        return new PostboxSchemaMissingException(message, description, action);
    }
}
