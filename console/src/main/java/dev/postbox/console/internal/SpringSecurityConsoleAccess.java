package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * Access with Spring Security: write actions need an authenticated user with the configured role
 * (postbox.console.role); forms carry Spring Security's CSRF token for its filter, besides the
 * console's own token.
 */
public final class SpringSecurityConsoleAccess implements ConsoleAccess {

    private final String authority;

    public SpringSecurityConsoleAccess(String role) {
        this.authority = "ROLE_" + role;
    }

    @Override
    public String principal(HttpServletRequest request) {
        Authentication a = SecurityContextHolder.getContext().getAuthentication();
        return a == null || a instanceof AnonymousAuthenticationToken ? "anonymous" : a.getName();
    }

    @Override
    public boolean mayWrite(HttpServletRequest request) {
        Authentication a = SecurityContextHolder.getContext().getAuthentication();
        if (a == null || !a.isAuthenticated() || a instanceof AnonymousAuthenticationToken) {
            return false;
        }
        for (GrantedAuthority g : a.getAuthorities()) {
            if (authority.equals(g.getAuthority())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String writeRefusal(HttpServletRequest request) {
        return "Write actions need the role " + authority.substring("ROLE_".length()) + " (postbox.console.role); "
                + principal(request) + " does not have it.";
    }

    @Override
    public @Nullable HiddenField frameworkCsrf(HttpServletRequest request) {
        Object token = request.getAttribute(CsrfToken.class.getName());
        if (token instanceof CsrfToken csrf) {
            return new HiddenField(csrf.getParameterName(), csrf.getToken());
        }
        return null;
    }
}
