package dev.postbox.internal;

import dev.postbox.Jackson2JsonCodec;
import dev.postbox.Jackson3JsonCodec;
import dev.postbox.SchemaInstaller;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * GraalVM native-image hints for the core, found by Spring AOT through {@code
 * META-INF/spring/aot.factories}: the migrations and the Liquibase change log under {@code
 * db/postbox} (read by {@link SchemaInstaller} and {@code SchemaVerifier}), and the Jackson mapper
 * classes {@link dev.postbox.JsonCodec#jackson()} looks up by name to choose an adapter, and the JDK
 * proxies of a named schema's connections ({@link SchemaQualifier}).
 */
public final class PostboxRuntimeHints implements RuntimeHintsRegistrar {

    /** The resources of {@code postbox-db}: every file directly under {@code db/postbox}. */
    public static final String MIGRATIONS_PATTERN = "db/postbox/*";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(MIGRATIONS_PATTERN);
        hints.resources().registerPattern(SchemaInstaller.LIQUIBASE_CHANGELOG);
        hints.reflection().registerTypeIfPresent(classLoader, Jackson3JsonCodec.MAPPER_CLASS, type -> {});
        hints.reflection().registerTypeIfPresent(classLoader, Jackson2JsonCodec.MAPPER_CLASS, type -> {});
        // The connections and statements of a named schema's DataSource (SchemaQualifier).
        hints.proxies().registerJdkProxy(org.springframework.jdbc.datasource.ConnectionProxy.class);
        hints.proxies().registerJdkProxy(java.sql.Statement.class);
    }
}
