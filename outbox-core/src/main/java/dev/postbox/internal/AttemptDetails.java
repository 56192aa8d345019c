package dev.postbox.internal;

import org.jspecify.annotations.Nullable;

/**
 * Implemented by handler exceptions that carry details for the attempt log, such as an HTTP
 * status and a response excerpt.
 */
public interface AttemptDetails {

    @Nullable
    Integer statusCode();

    /** A JSON object with details, or {@code null}. */
    @Nullable
    String detailJson();
}
