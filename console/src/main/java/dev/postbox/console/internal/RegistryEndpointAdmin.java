package dev.postbox.console.internal;

import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.EnableResult;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import dev.postbox.http.webhook.UnknownEndpointException;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/** {@link EndpointAdmin} on delivery-http's {@link EndpointRegistry}: the console's only use of that module. */
public final class RegistryEndpointAdmin implements EndpointAdmin {

    private final EndpointRegistry registry;

    public RegistryEndpointAdmin(EndpointRegistry registry) {
        this.registry = registry;
    }

    @Override
    public List<EndpointView> list() {
        return registry.list().stream().map(RegistryEndpointAdmin::view).toList();
    }

    @Override
    public Optional<EndpointView> get(String name) {
        return registry.get(name).map(RegistryEndpointAdmin::view);
    }

    @Override
    public EnableOutcome enable(String name) {
        EnableResult r = registry.enable(name);
        return new EnableOutcome(r.changed(), r.resumed(), r.replayed());
    }

    @Override
    public boolean disable(String name, String reason) {
        return registry.disable(name, reason);
    }

    @Override
    public String rotateSecret(String name) {
        Endpoint current = registry.get(name).orElseThrow(() -> new UnknownEndpointException(name));
        WebhookSecret fresh = WebhookSecret.generate();
        registry.update(current.toBuilder()
                .secrets(List.of(fresh, current.secrets().get(0)))
                .build());
        return fresh.serialized();
    }

    @Override
    public int retireOldSecrets(String name) {
        Endpoint current = registry.get(name).orElseThrow(() -> new UnknownEndpointException(name));
        int removed = current.secrets().size() - 1;
        if (removed > 0) {
            registry.update(current.toBuilder()
                    .secrets(List.of(current.secrets().get(0)))
                    .build());
        }
        return removed;
    }

    private static EndpointView view(Endpoint e) {
        return new EndpointView(
                e.name(),
                e.redactedUrl(),
                e.isEnabled(),
                e.disabledReason().orElse(null),
                e.disabledAt().orElse(null),
                e.consecutiveFailures(),
                e.failingSince().orElse(null),
                e.ratePerSecond().orElse(null),
                e.burst(),
                e.maxInFlight().orElse(null),
                new TreeSet<>(e.eventTypes()),
                e.secrets().size(),
                e.description().orElse(null));
    }
}
