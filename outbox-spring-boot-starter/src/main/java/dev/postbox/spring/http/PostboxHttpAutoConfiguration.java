package dev.postbox.spring.http;

import dev.postbox.JsonCodec;
import dev.postbox.Postbox;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.SsrfPolicy;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.SustainedFailurePolicy;
import dev.postbox.http.webhook.WebhookInstrumentation;
import dev.postbox.http.webhook.WebhookListener;
import dev.postbox.http.webhook.Webhooks;
import dev.postbox.spring.PostboxCustomizer;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import dev.postbox.spring.internal.PostboxDatabase;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Webhook delivery ({@code postbox-delivery-http}) on the starter's {@link Postbox}: an {@link
 * HttpDelivery} with the SSRF policy and timeouts of {@code postbox.http.*}, the {@link
 * HttpDeliveryModule} whose two handlers are installed into the engine through a {@link
 * PostboxCustomizer}, its {@link EndpointRegistry} and {@link Webhooks}, and the endpoints declared
 * under {@code postbox.http.endpoints.*}, registered at start-up. Every {@link WebhookListener} bean
 * receives the module's events. Off with {@code postbox.http.enabled=false}; absent without {@code
 * postbox-delivery-http} on the classpath.
 */
@AutoConfiguration(afterName = "dev.postbox.spring.PostboxAutoConfiguration")
@ConditionalOnClass(HttpDeliveryModule.class)
@ConditionalOnBean(Postbox.class)
@ConditionalOnBooleanProperty(name = "postbox.http.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PostboxHttpProperties.class)
public final class PostboxHttpAutoConfiguration {

    /** The HTTP client side: SSRF policy, default timeouts, response cap. Closed with the context. */
    @Bean
    @ConditionalOnMissingBean
    HttpDelivery postboxHttpDelivery(PostboxHttpProperties properties) {
        PostboxHttpProperties.Timeouts t = properties.getTimeouts();
        return HttpDelivery.builder()
                .ssrfPolicy(SsrfPolicy.custom()
                        .allowList(properties.getAllowList())
                        .httpsOnly(properties.isHttpsOnly())
                        .build())
                .defaultTimeouts(new EndpointTimeouts(t.getConnect(), t.getRead(), t.getCall()))
                .maxResponseBodyBytes(properties.getMaxResponseBodyBytes())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    HttpDeliveryModule postboxHttpDeliveryModule(
            PostboxDatabase database,
            ObjectProvider<Postbox> postbox,
            JsonCodec codec,
            HttpDelivery delivery,
            PostboxHttpProperties properties,
            ObjectProvider<WebhookListener> listeners,
            ObjectProvider<WebhookInstrumentation> instrumentation) {
        PostboxHttpProperties.SustainedFailure sustained = properties.getSustainedFailure();
        HttpDeliveryModule.Builder b = HttpDeliveryModule.builder(database.dataSource(), postbox::getObject)
                .delivery(delivery)
                .codec(codec)
                .listener(CompositeWebhookListener.of(listeners.orderedStream().toList()))
                .retryPolicy(properties.getRetry().toPolicy())
                .queue(properties.getQueue())
                .maxPayloadBytes(properties.getMaxPayloadBytes())
                .maxPermitWait(properties.getMaxPermitWait())
                .rateRecovery(properties.getRateRecovery())
                .minRateFactor(properties.getMinRateFactor())
                .parkDelay(properties.getParkDelay())
                .fanOutBatchSize(properties.getFanOutBatchSize())
                .sustainedFailure(
                        sustained.isEnabled()
                                ? new SustainedFailurePolicy(sustained.getMinFailures(), sustained.getMinDuration())
                                : SustainedFailurePolicy.NEVER);
        instrumentation.ifUnique(b::instrumentation);
        PostboxHttpProperties.GlobalRateLimit global = properties.getGlobalRateLimit();
        if (global.getRatePerSecond() != null) {
            b.globalRateLimit(global.getRatePerSecond(), global.getBurst());
        }
        return b.build();
    }

    /** Installs the module's delivery and fan-out handlers into the starter's {@code Postbox.Builder}. */
    @Bean
    @ConditionalOnMissingBean
    PostboxHttpInstaller postboxHttpInstaller(HttpDeliveryModule http) {
        return new PostboxHttpInstaller(http);
    }

    @Bean
    @ConditionalOnMissingBean
    EndpointRegistry postboxEndpointRegistry(HttpDeliveryModule http) {
        return http.endpoints();
    }

    @Bean
    @ConditionalOnMissingBean
    Webhooks postboxWebhooks(HttpDeliveryModule http) {
        return http.webhooks();
    }

    @Bean
    @ConditionalOnMissingBean
    PostboxHttpEndpointRegistrar postboxHttpEndpointRegistrar(
            EndpointRegistry registry, PostboxHttpProperties properties, Environment environment) {
        return new PostboxHttpEndpointRegistrar(registry, properties, environment);
    }

    /** Endpoint list, state and enable/disable for the {@code postbox} actuator endpoint. */
    @Bean
    @ConditionalOnMissingBean
    WebhookEndpointAdmin postboxWebhookEndpointAdmin(EndpointRegistry registry) {
        return new RegistryWebhookEndpointAdmin(registry);
    }

    /** A {@link PostboxCustomizer} that adds the module's two handlers to the engine. */
    public static final class PostboxHttpInstaller implements PostboxCustomizer {

        private final HttpDeliveryModule http;

        PostboxHttpInstaller(HttpDeliveryModule http) {
            this.http = http;
        }

        @Override
        public void customizePostbox(Postbox.Builder postbox) {
            http.installInto(postbox);
        }
    }
}
