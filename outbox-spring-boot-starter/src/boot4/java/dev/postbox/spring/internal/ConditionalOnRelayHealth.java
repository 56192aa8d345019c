package dev.postbox.spring.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;

/**
 * When a broker relay's health indicator can be configured: Spring Boot 4's health contributors
 * ({@code spring-boot-health}) are on the class path. Each indicator bean adds its own switch,
 * {@code ConditionalOnEnabledHealthIndicator}. The classes are named as strings, so the condition
 * reads without them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnClass(
        name = {
            "org.springframework.boot.health.contributor.HealthIndicator",
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"
        })
public @interface ConditionalOnRelayHealth {}
