package dev.postbox.spring.internal;

import dev.postbox.PostboxSchema;
import dev.postbox.SchemaInstaller;
import dev.postbox.SchemaVerifier;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies Postbox's migrations with Flyway, as a Flyway of their own: location {@code
 * classpath:db/postbox}, history table {@value #HISTORY_TABLE}. Their versions (V1, V2, …) therefore
 * never clash with the application's, whose Flyway keeps its own history. A database whose Postbox
 * tables were created another way (Postbox's installer, the application's Flyway, Liquibase) is
 * baselined at the version found, so nothing runs twice. Flyway's lock on the history table
 * serialises instances that start together. With {@code postbox.schema.name}, the history table and
 * the scripts' objects are in that schema (Flyway's {@code schemas} and {@code defaultSchema}).
 */
public final class FlywaySchemaMigrator implements SchemaMigrator {

    /** Flyway's history table of Postbox's migrations. */
    public static final String HISTORY_TABLE = "postbox_schema_history";

    private final ClassLoader classLoader;

    /** @param applicationFlyway the application's Flyway, whose class loader finds the migrations */
    public FlywaySchemaMigrator(Flyway applicationFlyway) {
        this.classLoader = applicationFlyway.getConfiguration().getClassLoader();
    }

    @Override
    public List<Integer> migrate(DataSource dataSource) {
        int found = new SchemaVerifier(dataSource).installedVersion();
        FluentConfiguration flyway = Flyway.configure(classLoader)
                // The scripts as they are: Flyway runs them with the schema as the search_path.
                .dataSource(PostboxSchema.unqualified(dataSource));
        // postbox.schema.name: Flyway creates the schema if needed, keeps its history there and runs the
        // scripts with it as the search_path; by default the connection's current schema.
        PostboxSchema.of(dataSource)
                .name()
                .ifPresent(schema -> flyway.schemas(schema).defaultSchema(schema));
        MigrateResult result = flyway.locations(SchemaInstaller.LOCATION)
                .table(HISTORY_TABLE)
                // The application's own tables make the schema non-empty: start Postbox's history anyway,
                // below V1 on a database without Postbox, at the version found on one with it.
                .baselineOnMigrate(true)
                .baselineVersion(String.valueOf(found))
                .baselineDescription(found == 0 ? "<< Postbox history start >>" : "Postbox schema found at V" + found)
                .placeholderReplacement(false)
                .load()
                .migrate();
        return result.migrations.stream().map(m -> Integer.valueOf(m.version)).toList();
    }

    @Override
    public String describe(DataSource dataSource) {
        return "Flyway (history in " + SchemaMigrator.historyTable(dataSource, HISTORY_TABLE) + ")";
    }
}
