package dev.postbox.chaos;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Each named tenant's webhook rate limit ({@code TenantAdmin.setWebhookRate}: {@link
 * ChaosTenants#WEBHOOK_RATE}/s, burst {@link ChaosTenants#WEBHOOK_BURST}, cluster-wide) as its
 * receiver sees it: in no 1 s window may the requests that reach the endpoints the tenant owns number
 * more than {@code rate + burst}, whichever of the three worker processes sent them. The tenant of a
 * request is the owner of the endpoint it reached (the harness registered them), not what the engine
 * says. Every request counts (each took a permit), except those frozen in their sender between the
 * permit and the send, as for the endpoint's check ({@link RateLimitCheck#LATE_MILLIS}).
 */
final class TenantRateLimitCheck {

    /** The bound: rate + burst requests of a tenant in any 1 s. */
    static final long BOUND = (long) ChaosTenants.WEBHOOK_RATE + ChaosTenants.WEBHOOK_BURST;

    private TenantRateLimitCheck() {}

    /** Wall-clock ms at which the arrivals of each violating window began (at most 20 per tenant). */
    static List<Long> check(Statement s, ChaosResult r) throws SQLException {
        Map<String, Long> requests = new TreeMap<>();
        Map<String, Long> max = new TreeMap<>();
        Map<String, Double> mean = new TreeMap<>();
        long late = 0;
        long maxLag = 0;
        long violations = 0;
        List<Long> starts = new ArrayList<>();
        for (String tenant : ChaosTenants.NAMED) {
            String endpoints = ChaosTenants.endpoints(tenant).stream()
                    .map(e -> "'" + e + "'")
                    .collect(Collectors.joining(", "));
            RateLimitCheck.Windows w = RateLimitCheck.windows(
                    s,
                    "SELECT arrival_ms, sent_s FROM chaos_delivery WHERE endpoint IN (" + endpoints
                            + ") ORDER BY arrival_ms",
                    BOUND);
            requests.put(tenant, w.requests());
            max.put(tenant, w.max());
            mean.put(tenant, w.meanPerSecond());
            late += w.late();
            maxLag = Math.max(maxLag, w.maxLagMillis());
            violations += w.violations();
            starts.addAll(w.violationStarts());
        }
        r.put("tenantRateLimitedRequests", requests);
        r.put("tenantRateLimitLateRequests", late);
        r.put("tenantRateLimitLateRequestsMaxLagMillis", maxLag);
        r.put("tenantRateLimitMaxPerSecond", max);
        r.put("tenantRateLimitBound", BOUND);
        r.put("tenantRateLimitMeanPerSecond", mean);
        r.put("tenantRateLimitViolations", violations);
        starts.sort(null);
        return starts;
    }
}
