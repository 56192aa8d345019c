package dev.postbox.console.internal;

import dev.postbox.console.PostboxConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Stands in front of every console request. Every response gets headers that keep the pages out of
 * caches and frames and allow scripts and styles from the console only. A request that is not a GET
 * or HEAD is a write: it passes only when postbox.console.write-enabled is on, the user may write
 * ({@link ConsoleAccess}) and the request carries the session's CSRF token; otherwise it is refused
 * with 403 and the refusal is logged.
 */
public final class ConsoleGuard implements HandlerInterceptor {

    private final PostboxConsoleProperties properties;
    private final ConsoleAccess access;
    private final CsrfTokens csrf;
    private final ConsoleAudit audit;

    public ConsoleGuard(
            PostboxConsoleProperties properties, ConsoleAccess access, CsrfTokens csrf, ConsoleAudit audit) {
        this.properties = properties;
        this.access = access;
        this.csrf = csrf;
        this.audit = audit;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "same-origin");
        response.setHeader(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
                        + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
        String method = request.getMethod();
        if ("GET".equals(method) || "HEAD".equals(method)) {
            return true;
        }
        String refusal = refusal(request);
        if (refusal != null) {
            audit.refused(access.principal(request), method, request.getRequestURI(), refusal);
            throw new ConsoleRefusedException(refusal);
        }
        return true;
    }

    private @Nullable String refusal(HttpServletRequest request) {
        if (!properties.isWriteEnabled()) {
            return "This console is read-only: write actions need postbox.console.write-enabled=true.";
        }
        if (!access.mayWrite(request)) {
            return access.writeRefusal(request);
        }
        if (!csrf.valid(request)) {
            return "The form's CSRF token is missing or stale: reload the page and try again.";
        }
        return null;
    }

    /** Whether the current user would pass the write checks (the pages show write buttons then). */
    public boolean canWrite(HttpServletRequest request) {
        return properties.isWriteEnabled() && access.mayWrite(request);
    }
}
