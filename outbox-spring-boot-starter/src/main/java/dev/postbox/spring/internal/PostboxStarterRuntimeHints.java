package dev.postbox.spring.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Native-image hints of the starter itself: the SpEL root object of {@code @Enqueue} expressions
 * ({@code #root.args}, {@code #root.result}), and Spring Boot's Testcontainers connection details,
 * which {@link ServiceConnectionDatabases} looks up by name. Handler methods and payload types are
 * covered per application by {@link PostboxReflectiveProcessor}.
 */
public final class PostboxStarterRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(hints.reflection(), EnqueueMethodInterceptor.EnqueueExpressionRoot.class);
        hints.reflection()
                .registerTypeIfPresent(
                        classLoader, ServiceConnectionDatabases.CONTAINER_CONNECTION_DETAILS, type -> {});
    }
}
