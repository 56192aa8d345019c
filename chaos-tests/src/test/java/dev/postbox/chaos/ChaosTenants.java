package dev.postbox.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The run's tenants (docs/tenants.md): the default tenant and three named ones. A business
 * transaction belongs to one tenant; a named tenant's local jobs, webhooks and events are its jobs,
 * its webhooks go to its own endpoints ({@code rx-<tenant>}, and {@code sub-<tenant>-1..2} subscribed
 * to the run's event type), and each named tenant has a cluster-wide webhook rate limit. Idempotency
 * keys are counted per tenant ({@code k-<n>}), so every key of a named tenant is also a key of the
 * other tenants.
 */
final class ChaosTenants {

    /** The named tenants; the default tenant (null) writes the rest of the traffic. */
    static final List<String> NAMED = List.of("acme", "globex", "initech");

    /** Share of the mixed business transactions that each named tenant writes (the default tenant the rest). */
    static final double SHARE_EACH = 0.06;

    /**
     * At most this many business transactions per second per named tenant (a faster producer, the
     * soak's 150/s, gives each a smaller share): about 3.3 webhook requests each, plus its bursts,
     * well below its webhook rate, so that its backlog does not grow past what the drain delivers.
     */
    static final double MAX_TX_PER_SECOND_EACH = 2.4;

    /** Each named tenant's share of the transactions of a producer at {@code txPerSecond}. */
    static double shareEach(double txPerSecond) {
        return txPerSecond <= 0 ? SHARE_EACH : Math.min(SHARE_EACH, MAX_TX_PER_SECOND_EACH / txPerSecond);
    }

    /** Each named tenant's webhook rate limit (all its endpoints together), and its burst. */
    static final double WEBHOOK_RATE = 10;

    static final int WEBHOOK_BURST = 5;

    /** Subscribers of the event type per named tenant. */
    static final int SUBSCRIBERS_EACH = 2;

    /**
     * Under the {@link Control#TENANT_SWAP} control, jobs whose seq is {@value #SWAP_AT} modulo this
     * are handed to their handler as the next tenant's (disjoint from the lost control's slice).
     */
    static final int SWAP_EVERY = 50;

    static final int SWAP_AT = 25;

    /** How the checker and the report name the default tenant (as {@code TenantId.DEFAULT_NAME}). */
    static final String DEFAULT_NAME = "(default)";

    private ChaosTenants() {}

    /** A named tenant's endpoint of direct webhook sends. */
    static String rx(String tenant) {
        return "rx-" + tenant;
    }

    /** A named tenant's subscribers of the event type. */
    static List<String> subscribers(String tenant) {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= SUBSCRIBERS_EACH; i++) {
            names.add("sub-" + tenant + "-" + i);
        }
        return names;
    }

    /** Every endpoint a named tenant owns. */
    static List<String> endpoints(String tenant) {
        List<String> names = new ArrayList<>(List.of(rx(tenant)));
        names.addAll(subscribers(tenant));
        return names;
    }

    /** The tenant that owns an endpoint of the run, or null (the default tenant). */
    static String owner(String endpoint) {
        for (String t : NAMED) {
            if (endpoints(t).contains(endpoint)) {
                return t;
            }
        }
        return null;
    }

    /** SQL: every named tenant's endpoints with their owner, {@code AS o(endpoint, tenant)}. */
    static String ownersSql() {
        return "(VALUES "
                + NAMED.stream()
                        .flatMap(t -> endpoints(t).stream().map(e -> "('" + e + "', '" + t + "')"))
                        .collect(Collectors.joining(", "))
                + ") AS o(endpoint, tenant)";
    }

    /** The tenant after {@code tenant} in default, acme, globex, initech, default... (the swap control). */
    static String next(String tenant) {
        int i = tenant == null ? -1 : NAMED.indexOf(tenant);
        return i + 1 < NAMED.size() ? NAMED.get(i + 1) : null;
    }

    /** Whether the swap control hands the job of this seq to its handler as another tenant's. */
    static boolean swapped(long seq) {
        return seq % SWAP_EVERY == SWAP_AT;
    }

    /**
     * The tenant a delivery says it belongs to: the {@code <tenant>/} prefix of its {@code webhook-id}
     * (a job of a named tenant is sent as {@code <tenant>/<key>}, a {@code .} of the tenant as {@code
     * %2E}; a key of the default tenant as itself, or as {@code /<key>} when it holds a {@code /} or
     * looks generated), null for none (the default tenant).
     */
    static String ofDeliveryId(String webhookId) {
        if (webhookId == null) {
            return null;
        }
        int slash = webhookId.indexOf('/');
        return slash > 0 ? webhookId.substring(0, slash).replace("%2E", ".") : null;
    }

    /** The report's name of a tenant. */
    static String name(String tenant) {
        return tenant == null ? DEFAULT_NAME : tenant;
    }
}
