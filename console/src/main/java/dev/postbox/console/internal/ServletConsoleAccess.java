package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Access without Spring Security: the console cannot tell who is asking, so nobody holds a role.
 * Reading needs postbox.console.allow-anonymous=true; writing is refused, whatever the settings.
 */
public final class ServletConsoleAccess implements ConsoleAccess {

    private static final String WHY = "No user is authenticated here: the console checks roles with Spring"
            + " Security, which is not on the class path.";

    @Override
    public String principal(HttpServletRequest request) {
        return "anonymous";
    }

    @Override
    public boolean authenticated(HttpServletRequest request) {
        return false;
    }

    @Override
    public boolean mayRead(HttpServletRequest request) {
        return false;
    }

    @Override
    public boolean mayWrite(HttpServletRequest request) {
        return false;
    }

    @Override
    public String readRefusal(HttpServletRequest request) {
        return WHY + " Add Spring Security and give operators postbox.console.read-role, or (dangerous) set"
                + " postbox.console.allow-anonymous=true for read-only access.";
    }

    @Override
    public String writeRefusal(HttpServletRequest request) {
        return WHY + " Write actions need an authenticated user with postbox.console.role: add Spring Security.";
    }

    @Override
    public @Nullable HiddenField frameworkCsrf(HttpServletRequest request) {
        return null;
    }
}
