package dev.postbox.spring.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Webhook endpoint administration for the {@code postboxwebhooks} actuator endpoint and the console,
 * present when {@code postbox-delivery-http} is configured. Kept free of that module's types so the
 * endpoint and the console work without it.
 */
public interface WebhookEndpointAdmin {

    /** Every endpoint, by name. */
    List<WebhookEndpointView> list();

    /** One endpoint, or empty when unknown. */
    Optional<WebhookEndpointView> get(String name);

    /**
     * Enables an endpoint: its parked deliveries become due at once and the dead letters it caused
     * while disabled (410 Gone) are replayed.
     *
     * @throws IllegalArgumentException when unknown
     */
    EnableView enable(String name);

    /**
     * Enables an endpoint of one tenant: the tenant's parked deliveries to it become due at once and
     * the tenant's dead letters it caused while disabled are replayed; other tenants' rows are not
     * touched. The tenant and the name are matched in the statements that write.
     *
     * @param tenant the tenant that owns the endpoint, null for the default tenant
     * @throws IllegalArgumentException when the tenant has no endpoint of that name
     * @throws UnsupportedOperationException from an implementation that cannot scope it (the default)
     */
    default EnableView enableForTenant(String name, @Nullable String tenant) {
        throw new UnsupportedOperationException("this WebhookEndpointAdmin cannot enable an endpoint for one tenant");
    }

    /**
     * Disables an endpoint; its deliveries wait without spending attempts. Returns false when it was
     * disabled already.
     *
     * @throws IllegalArgumentException when unknown
     */
    boolean disable(String name, String reason);

    /**
     * Disables an endpoint of one tenant; the tenant and the name are matched in the statement that
     * disables it. Returns false when it was disabled already.
     *
     * @param tenant the tenant that owns the endpoint, null for the default tenant
     * @throws IllegalArgumentException when the tenant has no endpoint of that name
     * @throws UnsupportedOperationException from an implementation that cannot scope it (the default)
     */
    default boolean disableForTenant(String name, @Nullable String tenant, String reason) {
        throw new UnsupportedOperationException("this WebhookEndpointAdmin cannot disable an endpoint for one tenant");
    }

    /**
     * Re-encrypts every stored signing secret and header value that is plain or sealed with a key
     * other than the active one; returns how many endpoints were rewritten.
     *
     * @throws IllegalStateException when no key is configured or a stored value cannot be decrypted
     *     (the message names the key id, never a value)
     */
    int reencryptSecrets();

    /**
     * Starts a secret rotation: a new secret becomes the newest and the previous newest is kept, so
     * deliveries carry both signatures until {@link #retireOldSecrets}. Returns the new secret, to be
     * shown once and never logged.
     *
     * @throws IllegalArgumentException when unknown
     */
    String rotateSecret(String name);

    /**
     * Ends a rotation: keeps only the newest secret; returns how many were removed.
     *
     * @throws IllegalArgumentException when unknown
     */
    int retireOldSecrets(String name);

    /**
     * An endpoint as the actuator shows it: never its secrets or header values.
     *
     * @param url the URL without credentials, fragment or query (a query shows as {@code ?[redacted]})
     * @param secrets how many signing secrets are active (two during rotation)
     * @param headers the names of its extra headers
     * @param tenant the tenant that owns it, null for the default tenant
     */
    record WebhookEndpointView(
            String name,
            String url,
            String state,
            @Nullable String disabledReason,
            @Nullable Instant disabledAt,
            int consecutiveFailures,
            @Nullable Instant failingSince,
            @Nullable Double ratePerSecond,
            int burst,
            @Nullable Integer maxInFlight,
            Set<String> eventTypes,
            int secrets,
            Set<String> headers,
            @Nullable String description,
            @Nullable String tenant) {}

    /**
     * What enabling did.
     *
     * @param changed whether the endpoint was disabled before
     * @param resumed parked deliveries made due now
     * @param replayed dead letters replayed
     */
    record EnableView(boolean changed, int resumed, int replayed) {}
}
