package dev.postbox.spring.internal;

import java.util.Map;
import java.util.Optional;

/** The {@link dev.postbox.spring.OutboxHandler} methods the engine was built with, by kind. */
public final class HandlerMethodRegistry {

    private final Map<String, HandlerMethod> byKind;

    public HandlerMethodRegistry(Map<String, HandlerMethod> byKind) {
        this.byKind = Map.copyOf(byKind);
    }

    public Map<String, HandlerMethod> byKind() {
        return byKind;
    }

    public Optional<HandlerMethod> forKind(String kind) {
        return Optional.ofNullable(byKind.get(kind));
    }
}
