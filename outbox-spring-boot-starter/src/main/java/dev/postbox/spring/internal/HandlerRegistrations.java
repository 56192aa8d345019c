package dev.postbox.spring.internal;

import dev.postbox.HandlerRegistration;
import dev.postbox.RetryPolicy;
import dev.postbox.spring.OutboxHandler;
import dev.postbox.spring.PostboxProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.convert.DurationStyle;

/**
 * Builds the engine's {@link HandlerRegistration}s from {@link OutboxHandler} methods. Each setting
 * comes from {@code postbox.handlers.<kind>.*} if set, else from the annotation, else from {@code
 * postbox.retry.*}.
 */
public final class HandlerRegistrations {

    private HandlerRegistrations() {}

    public static List<HandlerRegistration> of(
            Map<String, HandlerMethod> handlers, PostboxProperties properties, BeanFactory beanFactory) {
        List<HandlerRegistration> registrations = new ArrayList<>();
        for (HandlerMethod handler : handlers.values()) {
            registrations.add(of(handler, properties, beanFactory));
        }
        return registrations;
    }

    public static HandlerRegistration of(HandlerMethod handler, PostboxProperties properties, BeanFactory beanFactory) {
        OutboxHandler annotation = handler.annotation();
        PostboxProperties.Handler overrides = properties.getHandlers().get(handler.kind());
        RetryPolicy defaults = properties.getRetry().toPolicy();

        int maxAttempts = annotation.maxAttempts() > 0 ? annotation.maxAttempts() : defaults.maxAttempts();
        Duration base = duration(handler, "backoffBase", annotation.backoffBase(), defaults.base());
        Duration cap = duration(handler, "backoffCap", annotation.backoffCap(), defaults.cap());
        boolean transactional = annotation.transactional();
        @Nullable
        Duration timeLimit = parseOptionalDuration(
                annotation.timeLimit(), () -> "@OutboxHandler(timeLimit) on " + handler.describe());
        if (overrides != null) {
            timeLimit = overrides.getTimeLimit() != null ? overrides.getTimeLimit() : timeLimit;
            maxAttempts = overrides.getMaxAttempts() != null ? overrides.getMaxAttempts() : maxAttempts;
            base = overrides.getBase() != null ? overrides.getBase() : base;
            cap = overrides.getCap() != null ? overrides.getCap() : cap;
            transactional = overrides.getTransactional() != null ? overrides.getTransactional() : transactional;
        }
        RetryPolicy policy;
        try {
            policy = RetryPolicy.custom()
                    .base(base)
                    .cap(cap)
                    .maxAttempts(maxAttempts)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    "The retry policy of job kind '" + handler.kind() + "' (" + handler.describe()
                            + ", postbox.handlers." + handler.kind() + ".*) is invalid: " + e.getMessage(),
                    e);
        }
        return HandlerRegistration.of(handler.kind(), new HandlerMethodInvoker(beanFactory, handler))
                .transactional(transactional)
                .retryPolicy(policy)
                .timeLimit(positive(timeLimit, handler));
    }

    private static @Nullable Duration positive(@Nullable Duration timeLimit, HandlerMethod handler) {
        if (timeLimit != null && (timeLimit.isZero() || timeLimit.isNegative())) {
            throw new IllegalStateException("The time limit of job kind '" + handler.kind() + "' (" + handler.describe()
                    + ", @OutboxHandler(timeLimit)) must be positive, was " + timeLimit);
        }
        return timeLimit;
    }

    private static Duration duration(HandlerMethod handler, String attribute, String text, Duration fallback) {
        if (text.isBlank()) {
            return fallback;
        }
        return parseDuration(text, () -> "@OutboxHandler(" + attribute + ") on " + handler.describe());
    }

    /** Parses {@code "5s"}, {@code "500ms"} or {@code "PT5S"}; the message names where it came from. */
    static Duration parseDuration(String text, java.util.function.Supplier<String> where) {
        try {
            return DurationStyle.detectAndParse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    where.get() + ": '" + text
                            + "' is not a duration. Write it like \"5s\", \"500ms\", \"2m\" or \"PT5S\".",
                    e);
        }
    }

    static @Nullable Duration parseOptionalDuration(String text, java.util.function.Supplier<String> where) {
        return text.isBlank() ? null : parseDuration(text, where);
    }
}
