package dev.postbox.spring.endpoint;

import dev.postbox.spring.endpoint.WebhookEndpointAdmin.WebhookEndpointView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postboxwebhooks} actuator endpoint, for webhook delivery ({@code postbox-delivery-http}):
 *
 * <ul>
 *   <li>{@code GET /actuator/postboxwebhooks}: every webhook endpoint and its state (never secrets or
 *       header values); {@code GET /actuator/postboxwebhooks/{endpoint}} one (404 when unknown).
 *   <li>{@code POST /actuator/postboxwebhooks/{endpoint}} with {@code {"enabled": true}} enables an
 *       endpoint and replays what waited; with {@code {"enabled": false, "reason": "…"}} disables it
 *       (its deliveries wait without spending attempts).
 *   <li>{@code POST /actuator/postboxwebhooks} (no body) rewrites every stored signing secret and
 *       header value with the active encryption key, answering {@code endpoints}, how many were
 *       rewritten; 409 naming the key when it cannot.
 * </ul>
 *
 * The posts are write operations; see {@link PostboxEndpoint} for access and audit. Without webhook
 * delivery every operation answers 400 saying so. The list, the lookup and the enable/disable take
 * {@code tenant} (an id, or {@value PostboxTenantsEndpoint#DEFAULT_TENANT}): they then see and change
 * only that tenant's endpoints, and another tenant's endpoint is not found (docs/tenants.md).
 */
@Endpoint(id = "postboxwebhooks", defaultAccess = Access.READ_ONLY)
public class PostboxWebhooksEndpoint {

    private static final Logger log = LoggerFactory.getLogger(PostboxWebhooksEndpoint.class);

    private final @Nullable WebhookEndpointAdmin webhookEndpoints;
    private final AdminWrites writes;

    public PostboxWebhooksEndpoint(@Nullable WebhookEndpointAdmin webhookEndpoints, PostboxAdminProperties properties) {
        this.webhookEndpoints = webhookEndpoints;
        this.writes = new AdminWrites(properties);
    }

    /** Every webhook endpoint (of the tenant, when {@code tenant} is given), by name. */
    @ReadOperation
    public List<WebhookEndpointView> endpoints(@Nullable String tenant) {
        String key = PostboxTenantsEndpoint.key(tenant);
        return admin().list().stream()
                .filter(e -> PostboxTenantsEndpoint.visible(key, e.tenant()))
                .toList();
    }

    /** One webhook endpoint; {@code null} (404) when unknown (or another tenant's, when {@code tenant} is given). */
    @ReadOperation
    public @Nullable WebhookEndpointView endpoint(@Selector String endpoint, @Nullable String tenant) {
        String key = PostboxTenantsEndpoint.key(tenant);
        return admin().get(endpoint)
                .filter(e -> PostboxTenantsEndpoint.visible(key, e.tenant()))
                .orElse(null);
    }

    /**
     * Enables ({@code enabled: true}) or disables the endpoint; {@code reason} is kept with a disable
     * (a default names this endpoint). 404 when no endpoint has the name.
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> enabled(
            @Selector String endpoint,
            boolean enabled,
            @Nullable String reason,
            @Nullable String tenant,
            SecurityContext caller) {
        Map<String, @Nullable Object> parameters = new LinkedHashMap<>();
        parameters.put("endpoint", endpoint);
        parameters.put("reason", reason);
        parameters.put("tenant", tenant);
        return writes.run(caller, enabled ? "enable-endpoint" : "disable-endpoint", parameters, result -> {
            String name = RequestChecks.requiredName("endpoint", endpoint);
            WebhookEndpointAdmin admin = admin();
            result.put("endpoint", name);
            String key = PostboxTenantsEndpoint.key(tenant);
            if (key != null
                    && admin.get(name)
                            .filter(e -> PostboxTenantsEndpoint.visible(key, e.tenant()))
                            .isEmpty()) {
                return AdminWrites.notFound(
                        result,
                        "tenant " + (key.isEmpty() ? PostboxTenantsEndpoint.DEFAULT_TENANT : key)
                                + " has no webhook endpoint '" + name + "'");
            }
            return AdminWrites.notFoundWhenUnknown(result, () -> {
                // With a tenant, the writes themselves match it too: not only the check above.
                String owner = key == null || key.isEmpty() ? null : key;
                if (enabled) {
                    WebhookEndpointAdmin.EnableView done =
                            key == null ? admin.enable(name) : admin.enableForTenant(name, owner);
                    log.info(
                            "Postbox admin: webhook endpoint '{}' enabled ({} waiting deliveries resumed, {} dead"
                                    + " letters replayed)",
                            name,
                            done.resumed(),
                            done.replayed());
                    result.put("changed", done.changed());
                    result.put("resumed", done.resumed());
                    result.put("replayed", done.replayed());
                } else {
                    String why = RequestChecks.optional(reason);
                    String because = why != null ? why : "disabled through the postboxwebhooks endpoint";
                    boolean changed =
                            key == null ? admin.disable(name, because) : admin.disableForTenant(name, owner, because);
                    log.info("Postbox admin: webhook endpoint '{}' {}", name, changed ? "disabled" : "was disabled");
                    result.put("changed", changed);
                }
                return AdminWrites.ok(result);
            });
        });
    }

    /** Rewrites every stored secret and header value with the active key; 409 when it cannot. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> reencryptSecrets(SecurityContext caller) {
        return writes.run(caller, "reencrypt-secrets", Map.of(), result -> {
            try {
                int rewritten = admin().reencryptSecrets();
                log.info("Postbox admin: re-encrypted the secrets of {} webhook endpoints", rewritten);
                result.put("endpoints", rewritten);
                return AdminWrites.ok(result);
            } catch (IllegalStateException e) {
                // Names the key id or the configuration to add, never a secret.
                result.put("error", String.valueOf(e.getMessage()));
                return AdminWrites.response(PostboxEndpoint.STATUS_CONFLICT, result);
            }
        });
    }

    private WebhookEndpointAdmin admin() {
        return RequestChecks.configured(
                webhookEndpoints,
                "Webhook delivery is not configured: add postbox-delivery-http to the application",
                "webhook delivery not configured");
    }
}
