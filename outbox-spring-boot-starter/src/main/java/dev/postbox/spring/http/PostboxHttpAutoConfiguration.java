package dev.postbox.spring.http;

import dev.postbox.JsonCodec;
import dev.postbox.Postbox;
import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.HttpDelivery;
import dev.postbox.http.SecretCipher;
import dev.postbox.http.ssrf.PortPolicy;
import dev.postbox.http.ssrf.SsrfPolicy;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.HttpDeliveryModule;
import dev.postbox.http.webhook.SustainedFailurePolicy;
import dev.postbox.http.webhook.WebhookInstrumentation;
import dev.postbox.http.webhook.WebhookListener;
import dev.postbox.http.webhook.Webhooks;
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
 * HttpDeliveryModule} bean, a {@link dev.postbox.PostboxModule} that the starter's engine builder
 * adds (its two handlers, installed once the engine is built), its {@link EndpointRegistry} and {@link Webhooks}, and the endpoints declared
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
                        .ports(PortPolicy.of(properties.getAllowedPorts(), properties.getDeniedPorts()))
                        .build())
                .defaultTimeouts(new EndpointTimeouts(t.getConnect(), t.getRead(), t.getCall()))
                .maxResponseBodyBytes(properties.getMaxResponseBodyBytes())
                .build();
    }

    /**
     * Encryption at rest of endpoint secrets from {@code postbox.http.secrets.*}: AES-GCM with the
     * configured keys (stored plain values refused unless {@code migrate-plaintext=true}); without
     * keys, plain text only when {@code allow-plaintext=true}, otherwise a
     * cipher that refuses to store secrets (registration fails naming the fix). Declare your own
     * {@link SecretCipher} bean (a KMS, say) to replace it.
     */
    @Bean
    @ConditionalOnMissingBean
    SecretCipher postboxSecretCipher(PostboxHttpProperties properties) {
        PostboxHttpProperties.Secrets secrets = properties.getSecrets();
        if (secrets.getKeys().isEmpty()) {
            if (secrets.getActiveKey() != null) {
                throw new IllegalStateException("postbox.http.secrets.active-key is '" + secrets.getActiveKey()
                        + "' but postbox.http.secrets.keys is empty: add postbox.http.secrets.keys."
                        + secrets.getActiveKey() + "=<base64 AES key> (`openssl rand -base64 32`)");
            }
            return secrets.isAllowPlaintext() ? SecretCipher.plaintext() : SecretCipher.unconfigured();
        }
        String active = secrets.getActiveKey();
        if (active == null) {
            if (secrets.getKeys().size() > 1) {
                throw new IllegalStateException("postbox.http.secrets.active-key is required when several keys are"
                        + " configured (" + secrets.getKeys().keySet() + "): name the key new values are sealed with");
            }
            active = secrets.getKeys().keySet().iterator().next();
        }
        try {
            return AesGcmSecretCipher.of(secrets.getKeys(), active).migratingPlaintext(secrets.isMigratePlaintext());
        } catch (IllegalArgumentException e) {
            // The message names the key id, never the key.
            throw new IllegalStateException("postbox.http.secrets: " + e.getMessage());
        }
    }

    @Bean
    @ConditionalOnMissingBean
    HttpDeliveryModule postboxHttpDeliveryModule(
            PostboxDatabase database,
            JsonCodec codec,
            HttpDelivery delivery,
            PostboxHttpProperties properties,
            SecretCipher secretCipher,
            ObjectProvider<WebhookListener> listeners,
            ObjectProvider<WebhookInstrumentation> instrumentation) {
        PostboxHttpProperties.SustainedFailure sustained = properties.getSustainedFailure();
        HttpDeliveryModule.Builder b = HttpDeliveryModule.builder(database.dataSource())
                .delivery(delivery)
                .secretCipher(secretCipher)
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

    /**
     * Endpoint list, state, enable/disable and secret rotation for the {@code postboxwebhooks} actuator
     * endpoint and the console.
     */
    @Bean
    @ConditionalOnMissingBean
    WebhookEndpointAdmin postboxWebhookEndpointAdmin(EndpointRegistry registry) {
        return new RegistryWebhookEndpointAdmin(registry);
    }
}
