package dev.postbox.spring.http;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.EnableResult;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.UnknownEndpointException;
import dev.postbox.spring.endpoint.WebhookEndpointAdmin;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * {@link WebhookEndpointAdmin} on the module's {@link EndpointRegistry}: the one class through which
 * the actuator endpoint and the console reach that module's endpoints.
 */
final class RegistryWebhookEndpointAdmin implements WebhookEndpointAdmin {

    private final EndpointRegistry registry;

    RegistryWebhookEndpointAdmin(EndpointRegistry registry) {
        this.registry = registry;
    }

    @Override
    public List<WebhookEndpointView> list() {
        return registry.list().stream().map(RegistryWebhookEndpointAdmin::view).toList();
    }

    @Override
    public Optional<WebhookEndpointView> get(String name) {
        return registry.get(name).map(RegistryWebhookEndpointAdmin::view);
    }

    /** {@inheritDoc} Throws {@code UnknownEndpointException} (an IllegalArgumentException) when unknown. */
    @Override
    public EnableView enable(String name) {
        EnableResult r = registry.enable(name);
        return new EnableView(r.changed(), r.resumed(), r.replayed());
    }

    @Override
    public EnableView enableForTenant(String name, @Nullable String tenant) {
        EnableResult r = registry.enableForTenant(name, tenant);
        return new EnableView(r.changed(), r.resumed(), r.replayed());
    }

    /** {@inheritDoc} Throws {@code UnknownEndpointException} (an IllegalArgumentException) when unknown. */
    @Override
    public boolean disable(String name, String reason) {
        return registry.disable(name, reason);
    }

    @Override
    public boolean disableForTenant(String name, @Nullable String tenant, String reason) {
        return registry.disableForTenant(name, tenant, reason);
    }

    @Override
    public int reencryptSecrets() {
        return registry.reencryptSecrets();
    }

    /** {@inheritDoc} Throws {@code UnknownEndpointException} (an IllegalArgumentException) when unknown. */
    @Override
    public String rotateSecret(String name) {
        Endpoint current = existing(name);
        WebhookSecret fresh = WebhookSecret.generate();
        registry.update(current.toBuilder()
                .secrets(List.of(fresh, current.secrets().get(0)))
                .build());
        return fresh.serialized();
    }

    /** {@inheritDoc} Throws {@code UnknownEndpointException} (an IllegalArgumentException) when unknown. */
    @Override
    public int retireOldSecrets(String name) {
        Endpoint current = existing(name);
        int removed = current.secrets().size() - 1;
        if (removed > 0) {
            registry.update(current.toBuilder()
                    .secrets(List.of(current.secrets().get(0)))
                    .build());
        }
        return removed;
    }

    private Endpoint existing(String name) {
        return registry.get(name).orElseThrow(() -> new UnknownEndpointException(name));
    }

    static WebhookEndpointView view(Endpoint e) {
        return new WebhookEndpointView(
                e.name(),
                e.redactedUrl(),
                e.state().name().toLowerCase(Locale.ROOT),
                e.disabledReason().orElse(null),
                e.disabledAt().orElse(null),
                e.consecutiveFailures(),
                e.failingSince().orElse(null),
                e.ratePerSecond().orElse(null),
                e.burst(),
                e.maxInFlight().orElse(null),
                new TreeSet<>(e.eventTypes()),
                e.secrets().size(),
                new TreeSet<>(e.headers().keySet()),
                e.description().orElse(null),
                e.tenant().orElse(null));
    }
}
