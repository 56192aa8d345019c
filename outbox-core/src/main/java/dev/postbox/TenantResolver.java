package dev.postbox;

import org.jspecify.annotations.Nullable;

/**
 * Supplies the current tenant: typically the tenant of the current request or security context.
 * Consulted by {@link Outbox} on every enqueue: a {@link JobRequest} without a tenant gets the
 * current one, and a request with another tenant than the current one is refused with an {@link
 * IllegalArgumentException} (code running for tenant A cannot write tenant B's jobs; this covers
 * {@code Webhooks.send} to another tenant's endpoint and {@code Webhooks.publishFor} another tenant).
 * Where there is no current tenant it returns null, and requests keep the tenant they name.
 *
 * <p>Called on the enqueueing thread, so a thread-bound context (request scope, {@code
 * SecurityContextHolder}) works. The engine's own threads enqueue through it too (schedule fires,
 * the deliveries of a published event, jobs a handler enqueues): there it must return null, not
 * throw and not return a tenant left over in the thread.
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
