package dev.postbox.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * An application behind an authenticating proxy: every request arrives as the operator, Spring
 * Security keeps no session of its own, and the application allows the container's URL rewriting
 * (session ids in links) for its own pages. The console's session (its CSRF token) starts on the
 * first console page, a request without a session cookie.
 */
@Configuration(proxyBeanMethods = false)
class ProxyAuthSecurity {

    @Bean
    SecurityFilterChain proxyChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
                .addFilterBefore(new OperatorFromProxy(), AnonymousAuthenticationFilter.class)
                .sessionManagement(s ->
                        s.sessionCreationPolicy(SessionCreationPolicy.STATELESS).enableSessionUrlRewriting(true))
                .csrf(c -> c.disable());
        return http.build();
    }

    /** What a proxy's authentication header would give: the operator, on every request. */
    static final class OperatorFromProxy extends OncePerRequestFilter {
        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            SecurityContextHolder.getContext()
                    .setAuthentication(UsernamePasswordAuthenticationToken.authenticated(
                            "operator", null, List.of(new SimpleGrantedAuthority("ROLE_POSTBOX_OPERATOR"))));
            chain.doFilter(request, response);
        }
    }
}
