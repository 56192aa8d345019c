package dev.postbox.console.internal;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The webhook endpoints as the console sees and steers them, free of the delivery module's types:
 * {@link RegistryEndpointAdmin} is the one class that talks to that module, so a change of its API
 * touches one file. Views never carry secrets or header values.
 */
public interface EndpointAdmin {

    List<EndpointView> list();

    Optional<EndpointView> get(String name);

    /**
     * Enables an endpoint; its parked deliveries run and the dead letters it caused while disabled
     * are replayed.
     */
    EnableOutcome enable(String name);

    /** Disables an endpoint (deliveries wait); false when it was disabled already. */
    boolean disable(String name, String reason);

    /**
     * Starts a secret rotation: a new secret becomes the newest and the previous newest is kept, so
     * deliveries carry both signatures until {@link #retireOldSecrets}. Returns the new secret, to be
     * shown once and never logged.
     */
    String rotateSecret(String name);

    /** Ends a rotation: keeps only the newest secret; returns how many were removed. */
    int retireOldSecrets(String name);

    /**
     * An endpoint without its secrets.
     *
     * @param secrets how many signing secrets are active (two during a rotation)
     */
    record EndpointView(
            String name,
            String url,
            boolean enabled,
            @Nullable String disabledReason,
            @Nullable Instant disabledAt,
            int consecutiveFailures,
            @Nullable Instant failingSince,
            @Nullable Double ratePerSecond,
            int burst,
            @Nullable Integer maxInFlight,
            Set<String> eventTypes,
            int secrets,
            @Nullable String description) {}

    /** What enabling did: whether it changed, deliveries resumed, dead letters replayed. */
    record EnableOutcome(boolean changed, int resumed, int replayed) {}
}
