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
 * The Postbox actuator endpoints when the actuator is present: {@code postbox} (summary), {@code
 * postboxqueues}, {@code postboxjobs}, {@code postboxdeadletters}, {@code postboxschedules}, {@code
 * postboxwebhooks} and {@code postboxtenants}, each when it is available (exposed, e.g. {@code
 * management.endpoints.web.exposure.include=postbox,postboxjobs}, and not switched off with {@code
 * management.endpoint.<id>.access=none}). Write operations also need {@code
 * postbox.admin.write-enabled=true}.
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
    PostboxEndpoint postboxEndpoint(Postbox postbox, PostboxAdminProperties properties) {
        return new PostboxEndpoint(postbox.admin(), properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxQueuesEndpoint.class)
    PostboxQueuesEndpoint postboxQueuesEndpoint(Postbox postbox, PostboxAdminProperties properties) {
        return new PostboxQueuesEndpoint(postbox.admin(), properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxJobsEndpoint.class)
    PostboxJobsEndpoint postboxJobsEndpoint(Postbox postbox, PostboxAdminProperties properties) {
        return new PostboxJobsEndpoint(postbox.admin(), properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxDeadLettersEndpoint.class)
    PostboxDeadLettersEndpoint postboxDeadLettersEndpoint(Postbox postbox, PostboxAdminProperties properties) {
        return new PostboxDeadLettersEndpoint(postbox.admin(), properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxTenantsEndpoint.class)
    PostboxTenantsEndpoint postboxTenantsEndpoint(Postbox postbox, PostboxAdminProperties properties) {
        return new PostboxTenantsEndpoint(postbox.admin(), properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxSchedulesEndpoint.class)
    PostboxSchedulesEndpoint postboxSchedulesEndpoint(
            ObjectProvider<PostboxScheduleAdmin> schedules, PostboxAdminProperties properties) {
        return new PostboxSchedulesEndpoint(schedules.getIfAvailable(), properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(PostboxWebhooksEndpoint.class)
    PostboxWebhooksEndpoint postboxWebhooksEndpoint(
            ObjectProvider<WebhookEndpointAdmin> webhookEndpoints, PostboxAdminProperties properties) {
        return new PostboxWebhooksEndpoint(webhookEndpoints.getIfAvailable(), properties);
    }
}
