package dev.postbox.console;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Security of the test application: everything needs a login; Spring Security's CSRF protection is
 * on (with the plain token handler, so that a test can send the token in a header as a script
 * would). {@code /test/csrf} hands a logged-in user Spring Security's token, so the tests can build a
 * request that passes Spring Security and meets only the console's own checks.
 */
@Configuration(proxyBeanMethods = false)
class TestSecurity {

    static final String PASSWORD = "secret";

    @Bean
    SecurityFilterChain testSecurityChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .formLogin(f -> {})
                .csrf(c -> c.csrfTokenRequestHandler(new CsrfTokenRequestAttributeHandler()));
        return http.build();
    }

    @Bean
    UserDetailsService testUsers() {
        return new InMemoryUserDetailsManager(
                User.withUsername("operator")
                        .password("{noop}" + PASSWORD)
                        .roles("POSTBOX_OPERATOR")
                        .build(),
                User.withUsername("viewer")
                        .password("{noop}" + PASSWORD)
                        .roles("POSTBOX_VIEWER")
                        .build(),
                User.withUsername("stranger")
                        .password("{noop}" + PASSWORD)
                        .roles("USER")
                        .build());
    }

    /** Registered as a member class of this configuration. */
    @RestController
    static class TokenController {
        @GetMapping("/test/csrf")
        String csrf(HttpServletRequest request) {
            return ((CsrfToken) request.getAttribute(CsrfToken.class.getName())).getToken();
        }
    }
}
