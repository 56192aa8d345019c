package dev.postbox.spring.internal;

import java.util.List;
import javax.sql.DataSource;

/** Applies Postbox's migrations ({@code classpath:db/postbox}) that a database lacks. */
public interface SchemaMigrator {

    /** Applies the missing migrations; returns the versions it applied. */
    List<Integer> migrate(DataSource dataSource);

    /** For messages: how the migrations are applied and where they are recorded. */
    String describe();
}
