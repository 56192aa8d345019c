package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Who is asking and what they may do. Two implementations: {@link ServletConsoleAccess} without
 * Spring Security (no authenticated user, so nobody holds a role), and {@link
 * SpringSecurityConsoleAccess} with it (the authentication, the configured roles, Spring Security's
 * CSRF token).
 */
public interface ConsoleAccess {

    /** A hidden form field another layer checks (Spring Security's CSRF token). */
    record HiddenField(String name, String value) {}

    /** The user's name for the audit log, or "anonymous". */
    String principal(HttpServletRequest request);

    /** Whether an authenticated (not anonymous) user sent the request. */
    boolean authenticated(HttpServletRequest request);

    /** Whether an authenticated user holding the read role (or the write role) sent the request. */
    boolean mayRead(HttpServletRequest request);

    /** Whether an authenticated user holding the write role sent the request. */
    boolean mayWrite(HttpServletRequest request);

    /** Why {@link #mayRead} said no, for the refusal page. */
    String readRefusal(HttpServletRequest request);

    /** Why {@link #mayWrite} said no, for the refusal page. */
    String writeRefusal(HttpServletRequest request);

    /** The framework's CSRF field to put into every form, when the framework has one. */
    @Nullable
    HiddenField frameworkCsrf(HttpServletRequest request);
}
