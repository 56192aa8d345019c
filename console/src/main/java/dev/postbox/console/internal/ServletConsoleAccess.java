package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;

/**
 * Access without Spring Security: there are no roles to check, so postbox.console.write-enabled
 * alone decides; protect the console's path in front of the application. The audit names the
 * servlet principal when the container authenticated one.
 */
public final class ServletConsoleAccess implements ConsoleAccess {

    @Override
    public String principal(HttpServletRequest request) {
        Principal p = request.getUserPrincipal();
        return p == null ? "anonymous" : p.getName();
    }

    @Override
    public boolean mayWrite(HttpServletRequest request) {
        return true;
    }

    @Override
    public String writeRefusal(HttpServletRequest request) {
        return "";
    }

    @Override
    public @Nullable HiddenField frameworkCsrf(HttpServletRequest request) {
        return null;
    }
}
