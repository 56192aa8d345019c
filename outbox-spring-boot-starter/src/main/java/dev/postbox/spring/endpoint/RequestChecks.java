package dev.postbox.spring.endpoint;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * The checks the Postbox endpoints make on what a request gives them, in one place: a bad value is an
 * {@link InvalidEndpointRequestException} (HTTP 400) whose message names the parameter and what it may
 * be, and so is a request for a feature the application has not configured.
 */
final class RequestChecks {

    private RequestChecks() {}

    /** The trimmed text of an optional parameter, or null when it is absent or blank. */
    static @Nullable String optional(@Nullable String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    /** The trimmed name; 400 naming the parameter when it is blank. */
    static String requiredName(String parameter, String value) {
        String name = optional(value);
        if (name == null) {
            throw new InvalidEndpointRequestException(parameter + " may not be blank", "blank " + parameter);
        }
        return name;
    }

    /**
     * The given limit, or {@code byDefault} when none is given; 400 naming the parameter when it is
     * outside {@code [min, max]}.
     */
    static int limit(String parameter, @Nullable Integer given, int byDefault, int min, int max) {
        int limit = given != null ? given : byDefault;
        if (limit < min || limit > max) {
            throw new InvalidEndpointRequestException(
                    parameter + " must be between " + min + " and " + max + ", was " + limit, "limit out of range");
        }
        return limit;
    }

    /**
     * The admin of a feature the request needs; 400 with {@code missing} (what is not configured and
     * how to add it) when the application has none.
     */
    static <T> T configured(@Nullable T admin, String missing, String reason) {
        if (admin == null) {
            throw new InvalidEndpointRequestException(missing, reason);
        }
        return admin;
    }
}
