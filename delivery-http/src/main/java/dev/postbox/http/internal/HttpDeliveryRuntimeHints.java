package dev.postbox.http.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * GraalVM native-image hints of the HTTP delivery, found by Spring AOT through {@code
 * META-INF/spring/aot.factories}: the version resource of the {@code User-Agent}. Its JSON (endpoint
 * headers, attempt details) is made of maps and strings, which need no hints.
 */
public final class HttpDeliveryRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(PostboxVersion.RESOURCE);
    }
}
