package dev.postbox.spring.metrics;

import dev.postbox.TenantStats;
import dev.postbox.spring.internal.Poller;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes {@value PostboxMetrics#TENANT_OLDEST_AGE} for the worst {@code top} tenants (the oldest
 * due job first) and one {@value PostboxMetrics#OTHER_TENANTS_TAG} row for the worst of the rest,
 * so the {@code tenant} tag has at most {@code top + 1} values whatever the number of tenants.
 * Queried every {@code postbox.metrics.queue-poll-interval} (one query of {@code top + 1} rows);
 * cluster-wide values: aggregate with {@code max}.
 */
public class PostboxTenantMetrics implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PostboxTenantMetrics.class);

    private final IntFunction<List<TenantStats>> worstTenants;
    private final int top;
    private final MultiGauge oldestAge;
    private final Poller poller;
    private volatile boolean failing;

    /**
     * @param worstTenants the worst {@code n} tenants, worst first (e.g. {@code admin::tenants})
     * @param top tenants that get their own tag; 0 publishes nothing
     */
    public PostboxTenantMetrics(
            IntFunction<List<TenantStats>> worstTenants, MeterRegistry registry, int top, Duration interval) {
        this.worstTenants = worstTenants;
        this.top = top;
        this.poller =
                new Poller("postbox-tenant-metrics", interval, "postbox.metrics.queue-poll-interval", this::refresh);
        this.oldestAge = MultiGauge.builder(PostboxMetrics.TENANT_OLDEST_AGE)
                .description("How long the oldest claimable job of a tenant has been due (worst tenants; cluster-wide)")
                .baseUnit("seconds")
                .register(registry);
    }

    /** Queries now and replaces the rows; false when the query failed (the last values stay). */
    public boolean refresh() {
        if (top == 0) {
            return true;
        }
        List<TenantStats> worst;
        try {
            worst = worstTenants.apply(top + 1);
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Postbox tenant metrics: reading tenant statistics failed; keeping the last values", e);
            }
            return false;
        }
        failing = false;
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (int i = 0; i < worst.size(); i++) {
            TenantStats s = worst.get(i);
            String tag = i >= top
                    ? PostboxMetrics.OTHER_TENANTS_TAG
                    : s.tenantId().orElse(PostboxMetrics.DEFAULT_TENANT_TAG);
            rows.add(MultiGauge.Row.of(Tags.of("tenant", tag), s.oldestDueAge().toMillis() / 1000.0));
        }
        // overwrite=true: the worst tenants change from poll to poll; vanished tags go.
        oldestAge.register(rows, true);
        return true;
    }

    @Override
    public void start() {
        if (top > 0) {
            poller.start();
        }
    }

    @Override
    public void stop() {
        poller.stop();
    }

    @Override
    public boolean isRunning() {
        return poller.isRunning();
    }
}
