package dev.postbox.spring.internal;

import java.util.List;
import javax.sql.DataSource;

/** Applies Postbox's migrations ({@code classpath:db/postbox}) that a database lacks. */
public interface SchemaMigrator {

    /** Applies the missing migrations; returns the versions it applied. */
    List<Integer> migrate(DataSource dataSource);

    /**
     * For messages: how the migrations are applied to {@code dataSource} and where they are recorded
     * (with {@code postbox.schema.name}, the history table is named with its schema).
     */
    String describe(DataSource dataSource);

    /** The history table {@code table} as the messages name it: schema-qualified when Postbox has a schema. */
    static String historyTable(DataSource dataSource, String table) {
        return dev.postbox.PostboxSchema.of(dataSource)
                .name()
                .map(s -> s + "." + table)
                .orElse(table);
    }
}
