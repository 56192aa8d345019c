package dev.postbox.console.internal;

import dev.postbox.console.PostboxConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;

/**
 * The console's access decision, made for every request. Every response gets headers that keep the
 * pages out of caches and frames and allow scripts and styles from the console only. Reading needs
 * a user with the read role ({@link ConsoleAccess}) unless postbox.console.allow-anonymous is on. A
 * request that is not a GET or HEAD is a write: it passes only when postbox.console.write-enabled is
 * on, an authenticated user holds the write role and the request carries the session's CSRF token.
 * Otherwise it is refused (401 without an authenticated user, 403 otherwise) and the refusal logged.
 *
 * <p>It runs twice on purpose: as an MVC interceptor (before the request's arguments are read), and
 * from {@link ConsoleAdvice} before every console handler method, so that an application whose own
 * MVC configuration drops the interceptor still gets a closed console.
 */
public final class ConsoleGuard implements HandlerInterceptor {

    private static final Logger log = LoggerFactory.getLogger(ConsoleGuard.class);

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
        if (properties.isAllowAnonymous()) {
            log.warn(
                    "postbox.console.allow-anonymous=true: anyone who reaches this application can read the"
                            + " Postbox console at {} (jobs, keys, errors, endpoints, workers) without signing in."
                            + " Write actions still need an authenticated user with postbox.console.role.",
                    properties.getPath());
        }
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (handler instanceof ResourceHttpRequestHandler) {
            // The console's own CSS and htmx: the same files for everyone, no data in them. Serving them
            // lets the refusal page render; refusing them would only log each refusal as a servlet error.
            protectiveHeaders(response);
            return true;
        }
        check(request, response);
        return true;
    }

    /** Sets the protective headers; throws {@link ConsoleRefusedException} when the request may not pass. */
    public void check(HttpServletRequest request, HttpServletResponse response) {
        protectiveHeaders(response);
        String method = request.getMethod();
        boolean read = "GET".equals(method) || "HEAD".equals(method);
        String refusal = read ? readRefusal(request) : writeRefusal(request);
        if (refusal != null) {
            if (!read) {
                audit.refused(access.principal(request), method, request.getRequestURI(), refusal);
            }
            throw new ConsoleRefusedException(refusal, access.authenticated(request));
        }
    }

    private static void protectiveHeaders(HttpServletResponse response) {
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "same-origin");
        response.setHeader(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
                        + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    }

    private @Nullable String readRefusal(HttpServletRequest request) {
        return canRead(request) ? null : access.readRefusal(request);
    }

    private @Nullable String writeRefusal(HttpServletRequest request) {
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

    /** Whether the current user may read the console. */
    public boolean canRead(HttpServletRequest request) {
        return properties.isAllowAnonymous() || access.mayRead(request);
    }

    /** Whether the current user would pass the write checks (the pages show write buttons then). */
    public boolean canWrite(HttpServletRequest request) {
        return properties.isWriteEnabled() && access.mayWrite(request);
    }
}
