package dev.postbox.spring.internal;

import dev.postbox.spring.PostboxSchemaMissingException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Prints the fail-fast rule's account once, in Spring Boot's "APPLICATION FAILED TO START" block,
 * instead of a stack trace that repeats it at every level of the bean creation chain. Registered in
 * {@code META-INF/spring.factories} (both Spring Boot lines).
 */
public final class PostboxSchemaFailureAnalyzer extends AbstractFailureAnalyzer<PostboxSchemaMissingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PostboxSchemaMissingException cause) {
        return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
    }
}
