package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Who is asking and whether they may write. Two implementations: {@link ServletConsoleAccess}
 * without Spring Security (the servlet principal, no roles), and {@link SpringSecurityConsoleAccess}
 * with it (the authentication, the configured role, Spring Security's CSRF token).
 */
public interface ConsoleAccess {

    /** A hidden form field another layer checks (Spring Security's CSRF token). */
    record HiddenField(String name, String value) {}

    /** The user's name for the audit log, or "anonymous". */
    String principal(HttpServletRequest request);

    /** Whether the user holds what write actions need (besides postbox.console.write-enabled). */
    boolean mayWrite(HttpServletRequest request);

    /** Why {@link #mayWrite} said no, for the refusal page. */
    String writeRefusal(HttpServletRequest request);

    /** The framework's CSRF field to put into every form, when the framework has one. */
    @Nullable
    HiddenField frameworkCsrf(HttpServletRequest request);
}
