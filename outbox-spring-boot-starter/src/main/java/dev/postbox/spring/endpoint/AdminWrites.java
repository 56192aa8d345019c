package dev.postbox.spring.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * What every write operation of the Postbox endpoints shares: refused (403) unless {@value
 * #WRITE_PROPERTY} is true, and one audit line on {@value PostboxEndpoint#AUDIT_LOGGER} per call with
 * the principal, the action, its parameters and the HTTP status, whatever the outcome.
 */
final class AdminWrites {

    static final String WRITE_PROPERTY = "postbox.admin.write-enabled";

    private static final Logger audit = LoggerFactory.getLogger(PostboxEndpoint.AUDIT_LOGGER);

    private final PostboxAdminProperties properties;

    AdminWrites(PostboxAdminProperties properties) {
        this.properties = properties;
    }

    /**
     * Runs one write action. The action gets a result map holding {@code action} and answers its
     * response; an {@link InvalidEndpointRequestException} it throws is a 400.
     */
    WebEndpointResponse<Map<String, Object>> run(
            SecurityContext caller,
            String action,
            Map<String, ? extends @Nullable Object> parameters,
            Function<Map<String, Object>, WebEndpointResponse<Map<String, Object>>> perform) {
        String request = AdminAudit.describe(action, parameters);
        String principal = AdminAudit.principal(caller);
        WebEndpointResponse<Map<String, Object>> response;
        try {
            if (!properties.isWriteEnabled()) {
                response = response(
                        PostboxEndpoint.STATUS_FORBIDDEN,
                        Map.of(
                                "action",
                                action,
                                "error",
                                "Postbox write operations are disabled: set " + WRITE_PROPERTY
                                        + "=true to allow replay, purge, cancel, pause and resume"));
            } else {
                Map<String, Object> result = new LinkedHashMap<>();
                result.put("action", action);
                response = perform.apply(result);
            }
        } catch (InvalidEndpointRequestException e) {
            audit.info(
                    "postbox admin write: principal={} {} status={} ({})",
                    principal,
                    request,
                    WebEndpointResponse.STATUS_BAD_REQUEST,
                    e.getReason());
            throw e;
        } catch (RuntimeException e) {
            audit.warn(
                    "postbox admin write: principal={} {} status={} ({})",
                    principal,
                    request,
                    WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR,
                    e.getClass().getSimpleName());
            throw e;
        }
        audit.info("postbox admin write: principal={} {} status={}", principal, request, response.getStatus());
        return response;
    }

    static WebEndpointResponse<Map<String, Object>> ok(Map<String, Object> body) {
        return response(WebEndpointResponse.STATUS_OK, body);
    }

    static WebEndpointResponse<Map<String, Object>> notFound(Map<String, Object> body, String error) {
        body.put("error", error);
        return response(WebEndpointResponse.STATUS_NOT_FOUND, body);
    }

    static WebEndpointResponse<Map<String, Object>> response(int status, Map<String, Object> body) {
        return new WebEndpointResponse<>(body, status);
    }

    /**
     * The response of a write on a named thing, or 404 with the admin's message when the admin
     * refuses the name as unknown (an {@link IllegalArgumentException}).
     */
    static WebEndpointResponse<Map<String, Object>> notFoundWhenUnknown(
            Map<String, Object> result, Supplier<WebEndpointResponse<Map<String, Object>>> write) {
        try {
            return write.get();
        } catch (IllegalArgumentException e) {
            return notFound(result, String.valueOf(e.getMessage()));
        }
    }
}
