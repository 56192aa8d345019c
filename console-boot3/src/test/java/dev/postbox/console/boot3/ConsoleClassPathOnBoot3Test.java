package dev.postbox.console.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.console.PostboxConsoleAutoConfiguration;
import dev.postbox.spring.PostboxAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;
import org.springframework.security.core.SpringSecurityCoreVersion;
import org.springframework.util.ClassUtils;

/**
 * The console tests of this module (the shared ones from {@code console/src/test/java}: the
 * auto-configuration, the guard and the browser test) prove the console on Spring Boot 3.5 only if
 * they run on what a Boot 3.5 application has: Boot 3.5, Spring Framework 6.2, Spring Security 6,
 * Jackson 2 alone, the Boot 3 starter, and the console classes compiled here.
 */
class ConsoleClassPathOnBoot3Test {

    private final ClassLoader loader = getClass().getClassLoader();

    @Test
    void theTestsRunOnSpringBoot35WithSpringSecurity6() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        assertThat(SpringVersion.getVersion()).startsWith("6.2.");
        assertThat(SpringSecurityCoreVersion.getVersion()).startsWith("6.");
    }

    @Test
    void withTheBoot3StarterAndJackson2Alone() {
        assertThat(ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", loader))
                .isTrue();
        assertThat(ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", loader))
                .as("Jackson 3 is not on the test class path")
                .isFalse();
        assertThat(ClassUtils.isPresent("org.springframework.boot.health.contributor.HealthIndicator", loader))
                .as("no Spring Boot 4 module is on the test class path")
                .isFalse();
        assertThat(location(PostboxAutoConfiguration.class)).contains("spring-boot3-starter");
    }

    @Test
    void andTheConsoleClassesCompiledAgainstBoot35() {
        assertThat(location(PostboxConsoleAutoConfiguration.class)).contains("console-boot3");
    }

    private static String location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation().toString();
    }
}
