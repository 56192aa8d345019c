package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * Access with Spring Security: reading needs an authenticated user with the read role
 * (postbox.console.read-role) or the write role, write actions need the write role
 * (postbox.console.role); forms carry Spring Security's CSRF token for its filter, besides the
 * console's own token.
 */
public final class SpringSecurityConsoleAccess implements ConsoleAccess {

    private final String writeRole;
    private final String readRole;

    public SpringSecurityConsoleAccess(String writeRole, String readRole) {
        this.writeRole = writeRole;
        this.readRole = readRole;
    }

    @Override
    public String principal(HttpServletRequest request) {
        Authentication a = authentication();
        return a == null ? "anonymous" : a.getName();
    }

    @Override
    public boolean authenticated(HttpServletRequest request) {
        return authentication() != null;
    }

    @Override
    public boolean mayRead(HttpServletRequest request) {
        return holds("ROLE_" + readRole) || holds("ROLE_" + writeRole);
    }

    @Override
    public boolean mayWrite(HttpServletRequest request) {
        return holds("ROLE_" + writeRole);
    }

    @Override
    public String readRefusal(HttpServletRequest request) {
        return authenticated(request)
                ? "Reading the console needs the role " + readRole + " (postbox.console.read-role) or " + writeRole
                        + " (postbox.console.role); " + principal(request) + " has neither."
                : "Sign in: reading the console needs an authenticated user with the role " + readRole
                        + " (postbox.console.read-role).";
    }

    @Override
    public String writeRefusal(HttpServletRequest request) {
        return "Write actions need the role " + writeRole + " (postbox.console.role); " + principal(request)
                + " does not have it.";
    }

    @Override
    public @Nullable HiddenField frameworkCsrf(HttpServletRequest request) {
        Object token = request.getAttribute(CsrfToken.class.getName());
        if (token instanceof CsrfToken csrf) {
            return new HiddenField(csrf.getParameterName(), csrf.getToken());
        }
        return null;
    }

    /** The authenticated user, or null for none or an anonymous one. */
    private static @Nullable Authentication authentication() {
        Authentication a = SecurityContextHolder.getContext().getAuthentication();
        return a == null || !a.isAuthenticated() || a instanceof AnonymousAuthenticationToken ? null : a;
    }

    private static boolean holds(String authority) {
        Authentication a = authentication();
        if (a == null) {
            return false;
        }
        for (GrantedAuthority g : a.getAuthorities()) {
            if (authority.equals(g.getAuthority())) {
                return true;
            }
        }
        return false;
    }
}
