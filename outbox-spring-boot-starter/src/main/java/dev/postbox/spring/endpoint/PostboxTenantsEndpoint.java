package dev.postbox.spring.endpoint;

import dev.postbox.PostboxAdmin;
import dev.postbox.TenantAdmin;
import dev.postbox.TenantId;
import dev.postbox.TenantStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postboxtenants} actuator endpoint: the tenants, the worst first, and pause and resume of
 * one tenant (docs/tenants.md).
 *
 * <ul>
 *   <li>{@code GET /actuator/postboxtenants?limit=}: the worst tenants, oldest due job first (the
 *       tenants with live jobs or settings; {@code limit} defaults to postbox.admin.dead-letter-limit).
 *   <li>{@code GET /actuator/postboxtenants/{tenant}}: one tenant (zero counts when it has no live job).
 *   <li>{@code POST /actuator/postboxtenants/{tenant}} with {@code {"paused": true}} or {@code false}:
 *       pauses or resumes the tenant in every queue, cluster-wide (a write operation; see {@link
 *       PostboxEndpoint} for access and audit).
 * </ul>
 *
 * {@value #DEFAULT_TENANT} names the default tenant (jobs without a tenant) wherever a tenant is
 * asked for; the {@code tenant} parameter of {@link PostboxDeadLettersEndpoint postboxdeadletters}
 * and {@link PostboxJobsEndpoint postboxjobs} takes the same names and limits those operations to
 * the tenant's rows.
 */
@Endpoint(id = "postboxtenants", defaultAccess = Access.READ_ONLY)
public class PostboxTenantsEndpoint {

    /** How requests name the default tenant (parentheses: no tenant id can be this). */
    public static final String DEFAULT_TENANT = TenantId.DEFAULT_NAME;

    /** The most tenants one list returns. */
    public static final int MAX_TENANT_LIMIT = 1000;

    private static final Logger log = LoggerFactory.getLogger(PostboxTenantsEndpoint.class);

    private final PostboxAdmin admin;
    private final PostboxAdminProperties properties;
    private final AdminWrites writes;

    public PostboxTenantsEndpoint(PostboxAdmin admin, PostboxAdminProperties properties) {
        this.admin = admin;
        this.properties = properties;
        this.writes = new AdminWrites(properties);
    }

    /** The worst tenants right now, the oldest due job first. */
    @ReadOperation
    public List<TenantSummary> tenants(@Nullable Integer limit) {
        int max = limit != null ? limit : properties.getDeadLetterLimit();
        if (max < 1 || max > MAX_TENANT_LIMIT) {
            throw new InvalidEndpointRequestException(
                    "limit must be between 1 and " + MAX_TENANT_LIMIT + ", was " + max, "limit out of range");
        }
        return admin.tenants(max).stream().map(TenantSummary::of).toList();
    }

    /** One tenant right now. */
    @ReadOperation
    public TenantSummary tenant(@Selector String tenant) {
        return TenantSummary.of(forTenant(admin, tenant).stats());
    }

    /** Pauses ({@code paused: true}) or resumes the tenant in every queue: its jobs stay but none is claimed. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> paused(
            @Selector String tenant, boolean paused, SecurityContext caller) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("tenant", tenant);
        return writes.run(caller, paused ? "pause" : "resume", parameters, result -> {
            TenantAdmin scoped = forTenant(admin, tenant);
            if (paused) {
                scoped.pause();
            } else {
                scoped.resume();
            }
            String name = name(scoped);
            log.info("Postbox admin: tenant {} {}", name, paused ? "paused" : "resumed");
            result.put("tenant", name);
            result.put("paused", paused);
            return AdminWrites.ok(result);
        });
    }

    /**
     * The admin operations of the tenant a request names: an id, or {@value #DEFAULT_TENANT}; 400
     * naming the rule when it is not a valid tenant id.
     */
    static TenantAdmin forTenant(PostboxAdmin admin, String tenant) {
        String name = RequestChecks.requiredName("tenant", tenant);
        if (name.equals(DEFAULT_TENANT)) {
            return admin.forDefaultTenant();
        }
        try {
            return admin.forTenant(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(String.valueOf(e.getMessage()), "bad tenant");
        }
    }

    /**
     * The tenant key a request's {@code tenant} parameter names ({@code ""} for {@value
     * #DEFAULT_TENANT}), or null when it names none (every tenant); 400 naming the rule when it is
     * not a valid tenant id.
     */
    static @Nullable String key(@Nullable String tenant) {
        String named = RequestChecks.optional(tenant);
        if (named == null) {
            return null;
        }
        if (named.equals(DEFAULT_TENANT)) {
            return "";
        }
        try {
            return TenantId.validate(named, "tenant");
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(String.valueOf(e.getMessage()), "bad tenant");
        }
    }

    /** Whether a row of tenant {@code owner} (null: the default tenant) is visible to a request for {@code key}. */
    static boolean visible(@Nullable String key, @Nullable String owner) {
        return key == null || key.equals(TenantId.key(owner));
    }

    /** The name a request uses for the tenant. */
    static String name(TenantAdmin tenant) {
        return tenant.tenant().orElse(DEFAULT_TENANT);
    }

    /**
     * One tenant right now; {@code oldestAgeSeconds} is its SLO (how long its oldest claimable job
     * has waited), {@code maxRunning} its cluster-wide cap (null for none).
     */
    public record TenantSummary(
            String tenant,
            long due,
            long running,
            double oldestAgeSeconds,
            boolean paused,
            @Nullable Integer maxRunning) {

        static TenantSummary of(TenantStats s) {
            return new TenantSummary(
                    s.tenantId().orElse(DEFAULT_TENANT),
                    s.due(),
                    s.running(),
                    s.oldestDueAge().toMillis() / 1000.0,
                    s.paused(),
                    s.maxRunning());
        }
    }
}
