package dev.postbox.http.webhook;

import dev.postbox.http.internal.NegativeControls;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The tenants' webhook rate limits ({@code outbox_tenant.rate_per_second} and {@code rate_burst},
 * set with {@code TenantAdmin.setWebhookRate}), re-read at most every {@link #REFRESH}. Each limited
 * tenant has a cluster-wide token bucket in {@code outbox_rate_bucket} under the key {@value
 * #BUCKET_PREFIX}{@code <tenant>} ({@code tenant:} alone for the default tenant; no endpoint name
 * contains {@code :}), created or reconfigured here when a limit is first seen or changes.
 */
final class TenantRates {

    /** Prefix of a tenant's bucket key. */
    static final String BUCKET_PREFIX = "tenant:";

    /**
     * The negative control {@code rateLimitPerProcess}: each process draws a tenant's permits from a
     * bucket of its own (of the tenant's rate and burst), as it does an endpoint's.
     */
    private static final String PER_PROCESS = NegativeControls.RATE_LIMIT_PER_PROCESS
            ? "@" + ProcessHandle.current().pid()
            : "";

    /** How long a read of the limits is used before it is read again. */
    static final Duration REFRESH = Duration.ofSeconds(2);

    private static final String LIMITS =
            "SELECT tenant, rate_per_second, rate_burst FROM outbox_tenant WHERE rate_per_second IS NOT NULL";

    private record Limit(double perSecond, int burst) {}

    private final DataSource dataSource;
    private final RateLimitStore buckets;
    private volatile Map<String, Limit> limits = Map.of();
    private volatile long readAt;
    private volatile boolean read;

    TenantRates(DataSource dataSource, RateLimitStore buckets) {
        this.dataSource = dataSource;
        this.buckets = buckets;
    }

    /**
     * The bucket key of the tenant's webhook rate limit ({@code tenantKey}: the tenant id, {@code ""}
     * for the default tenant), or null when it has none.
     */
    @Nullable
    String bucket(String tenantKey) throws SQLException {
        if (!read || System.nanoTime() - readAt > REFRESH.toNanos()) {
            refresh();
        }
        return limits.containsKey(tenantKey) ? BUCKET_PREFIX + tenantKey + PER_PROCESS : null;
    }

    private synchronized void refresh() throws SQLException {
        if (read && System.nanoTime() - readAt <= REFRESH.toNanos()) {
            return; // another thread has just read them
        }
        Map<String, Limit> now = new HashMap<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(LIMITS);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Object burst = rs.getObject(3);
                    double perSecond = rs.getDouble(2);
                    now.put(
                            rs.getString(1),
                            new Limit(
                                    perSecond,
                                    burst != null
                                            ? ((Number) burst).intValue()
                                            : (int) Math.max(1, Math.ceil(perSecond))));
                }
            }
        }
        Map<String, Limit> before = limits;
        for (Map.Entry<String, Limit> e : now.entrySet()) {
            if (!e.getValue().equals(before.get(e.getKey()))) {
                buckets.configure(
                        BUCKET_PREFIX + e.getKey() + PER_PROCESS,
                        e.getValue().perSecond(),
                        e.getValue().burst());
            }
        }
        limits = Map.copyOf(now);
        readAt = System.nanoTime();
        read = true;
    }
}
