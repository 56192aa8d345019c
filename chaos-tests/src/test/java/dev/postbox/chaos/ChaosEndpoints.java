package dev.postbox.chaos;

import dev.postbox.http.AesGcmSecretCipher;
import dev.postbox.http.EndpointTimeouts;
import dev.postbox.http.signing.WebhookSecret;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.EndpointRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The receiver's endpoints in {@code outbox_endpoint}: all keyed and signed (each with its own
 * secret), 1 s timeouts (the receiver's "timeout after apply" takes longer), the regular retry
 * policy; {@link #RX_LIMITED} rate-limited cluster-wide; the subscribers receive every {@link
 * #EVENT_TYPE} event. Each named tenant ({@link ChaosTenants}) owns {@code rx-<tenant>} and its own
 * subscribers, which receive that tenant's events only.
 */
final class ChaosEndpoints {

    /** Endpoint of direct (keyed, signed) webhook sends, no rate limit. */
    static final String RX = "rx";
    /** Endpoint with a cluster-wide rate limit; the checker measures its arrival rate. */
    static final String RX_LIMITED = "rxlimited";

    static final double LIMITED_RATE = 10;
    static final int LIMITED_BURST = 5;
    /** Event type of published (fan-out) events, and its subscribers. */
    static final String EVENT_TYPE = "chaos.event";

    static final List<String> SUBSCRIBERS = List.of("sub1", "sub2", "sub3", "sub4", "sub5");

    /**
     * The key every process of a run seals and opens endpoint secrets with (they are encrypted at
     * rest); fixed, since the worker processes read what the run registered.
     */
    static final AesGcmSecretCipher CIPHER =
            AesGcmSecretCipher.of(Map.of("chaos", "Y2hhb3MtcnVuLWtleS0wMTIzNDU2Nzg5YWJjZGVmMDE="), "chaos");

    private ChaosEndpoints() {}

    static List<String> names() {
        List<String> names = new ArrayList<>(List.of(RX, RX_LIMITED));
        names.addAll(SUBSCRIBERS);
        for (String tenant : ChaosTenants.NAMED) {
            names.addAll(ChaosTenants.endpoints(tenant));
        }
        return names;
    }

    /** A fresh secret per endpoint, by name. */
    static Map<String, WebhookSecret> newSecrets() {
        Map<String, WebhookSecret> secrets = new LinkedHashMap<>();
        for (String name : names()) {
            secrets.put(name, WebhookSecret.generate());
        }
        return secrets;
    }

    static void register(EndpointRegistry endpoints, Receiver receiver, Map<String, WebhookSecret> secrets) {
        EndpointTimeouts timeouts =
                new EndpointTimeouts(WorkerMain.HTTP_TIMEOUT, WorkerMain.HTTP_TIMEOUT, WorkerMain.HTTP_TIMEOUT);
        for (String name : names()) {
            Endpoint.Builder b = Endpoint.builder(name, receiver.url(name))
                    .secret(secrets.get(name))
                    .timeouts(timeouts)
                    .retryPolicy(WorkerMain.REGULAR);
            if (name.equals(RX_LIMITED)) {
                b.rateLimit(LIMITED_RATE, LIMITED_BURST);
            }
            String tenant = ChaosTenants.owner(name);
            if (SUBSCRIBERS.contains(name)
                    || (tenant != null && ChaosTenants.subscribers(tenant).contains(name))) {
                b.subscribe(EVENT_TYPE);
            }
            b.tenant(tenant);
            endpoints.register(b.build());
        }
    }
}
