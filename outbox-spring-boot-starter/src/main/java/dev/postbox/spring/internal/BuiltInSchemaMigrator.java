package dev.postbox.spring.internal;

import dev.postbox.SchemaInstaller;
import java.util.List;
import javax.sql.DataSource;

/** Postbox's own {@link SchemaInstaller}: history in {@code outbox_schema_version}. */
public final class BuiltInSchemaMigrator implements SchemaMigrator {

    @Override
    public List<Integer> migrate(DataSource dataSource) {
        return new SchemaInstaller(dataSource).install();
    }

    @Override
    public String describe(DataSource dataSource) {
        return "Postbox's installer (history in " + SchemaMigrator.historyTable(dataSource, "outbox_schema_version")
                + ")";
    }
}
