package dev.postbox.spring.health;

import dev.postbox.Postbox;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code postbox} health contributor ({@link PostboxHealthIndicator}) when Boot's health support
 * ({@code spring-boot-actuator} and its auto-configuration on Spring Boot 3.5) is present. Off with {@code
 * management.health.postbox.enabled=false}; thresholds under {@code postbox.health.*}.
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnClass(
        name = {
            "org.springframework.boot.actuate.health.HealthIndicator",
            "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
        })
@ConditionalOnBean(Postbox.class)
@EnableConfigurationProperties(PostboxHealthProperties.class)
public final class PostboxHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "postboxHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("postbox")
    PostboxHealthIndicator postboxHealthIndicator(Postbox postbox, PostboxHealthProperties properties) {
        return new PostboxHealthIndicator(postbox, properties);
    }
}
