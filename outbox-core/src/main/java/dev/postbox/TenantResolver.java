package dev.postbox;

import org.jspecify.annotations.Nullable;

/**
 * Supplies the tenant of a job enqueued without one: typically the tenant of the current request or
 * security context. Consulted by {@link Outbox} for every {@link JobRequest} whose tenant is not set;
 * a request with a tenant keeps it. Called on the enqueueing thread, so a thread-bound context
 * (request scope, {@code SecurityContextHolder}) works.
 */
@FunctionalInterface
public interface TenantResolver {

    /** No resolver: jobs without a tenant belong to the default tenant. */
    TenantResolver NONE = () -> null;

    /**
     * The current tenant id (validated as a {@link TenantId}), or null for the default tenant.
     */
    @Nullable
    String currentTenant();
}
