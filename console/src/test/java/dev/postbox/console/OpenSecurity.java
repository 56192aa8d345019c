package dev.postbox.console;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * An application that protects nothing itself: every request passes Spring Security, which only
 * authenticates HTTP Basic credentials when sent, with its CSRF protection off (as many APIs have it).
 * The console alone must refuse. Users as in {@link TestSecurity}.
 */
@Configuration(proxyBeanMethods = false)
class OpenSecurity {

    @Bean
    SecurityFilterChain openChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
                .httpBasic(b -> {})
                .csrf(c -> c.disable());
        return http.build();
    }

    @Bean
    UserDetailsService openUsers() {
        return new InMemoryUserDetailsManager(
                User.withUsername("operator")
                        .password("{noop}" + TestSecurity.PASSWORD)
                        .roles("POSTBOX_OPERATOR")
                        .build(),
                User.withUsername("viewer")
                        .password("{noop}" + TestSecurity.PASSWORD)
                        .roles("POSTBOX_VIEWER")
                        .build(),
                User.withUsername("stranger")
                        .password("{noop}" + TestSecurity.PASSWORD)
                        .roles("USER")
                        .build());
    }
}
