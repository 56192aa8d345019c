package dev.postbox.spring.endpoint;

import dev.postbox.Postbox;
import dev.postbox.spring.schedule.PostboxScheduleAdmin;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code postbox} actuator endpoint ({@link PostboxEndpoint}) when the actuator is present and the
 * endpoint is available (exposed, e.g. {@code management.endpoints.web.exposure.include=postbox}, and
 * not switched off with {@code management.endpoint.postbox.access=none}). Write operations also need
 * {@code postbox.admin.write-enabled=true}.
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnClass(
        name = {
            "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
        })
@ConditionalOnBean(Postbox.class)
@EnableConfigurationProperties(PostboxAdminProperties.class)
public final class PostboxEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxEndpoint.class)
    PostboxEndpoint postboxEndpoint(
            Postbox postbox,
            PostboxAdminProperties properties,
            ObjectProvider<WebhookEndpointAdmin> webhookEndpoints,
            ObjectProvider<PostboxScheduleAdmin> schedules) {
        return new PostboxEndpoint(
                postbox.admin(), properties, webhookEndpoints.getIfAvailable(), schedules.getIfAvailable());
    }
}
