package dev.postbox.spring.metrics;

import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import dev.postbox.spring.internal.Poller;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes {@value PostboxMetrics#QUEUE_DEPTH}, {@value PostboxMetrics#QUEUE_OLDEST_AGE}, {@value
 * PostboxMetrics#DLQ_DEPTH} and {@value PostboxMetrics#QUEUE_PAUSED} per queue from {@link
 * PostboxAdmin#queues()}, queried every {@code postbox.metrics.queue-poll-interval} on a daemon
 * thread, not on each scrape. The values are cluster-wide (they come from the database), so every
 * instance reports the same numbers: aggregate them with {@code max}, not {@code sum}.
 *
 * <p>A failed query keeps the last values and is logged once until a query succeeds again. Queues
 * that disappear (no jobs, no dead letters, no configuration row) lose their gauges.
 */
public class PostboxQueueMetrics implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PostboxQueueMetrics.class);

    private final Supplier<List<QueueStats>> stats;
    private final Map<String, QueueHolder> holders = new ConcurrentHashMap<>();
    private final MultiGauge depth;
    private final MultiGauge oldestAge;
    private final MultiGauge dlqDepth;
    private final MultiGauge paused;
    private final Poller poller;
    private volatile boolean failing;

    /** Polls {@code admin.queues()} every {@code interval}. */
    public PostboxQueueMetrics(PostboxAdmin admin, MeterRegistry registry, Duration interval) {
        this(admin::queues, registry, interval);
    }

    /** Polls the given source of statistics (for tests and custom sources). */
    public PostboxQueueMetrics(Supplier<List<QueueStats>> stats, MeterRegistry registry, Duration interval) {
        this.stats = stats;
        this.poller = new Poller("postbox-metrics", interval, "postbox.metrics.queue-poll-interval", this::refresh);
        this.depth = MultiGauge.builder(PostboxMetrics.QUEUE_DEPTH)
                .description("Jobs per queue and state (cluster-wide)")
                .register(registry);
        this.oldestAge = MultiGauge.builder(PostboxMetrics.QUEUE_OLDEST_AGE)
                .description("How long the oldest claimable job has been due (the SLO; cluster-wide)")
                .baseUnit("seconds")
                .register(registry);
        this.dlqDepth = MultiGauge.builder(PostboxMetrics.DLQ_DEPTH)
                .description("Dead letters per queue (cluster-wide)")
                .register(registry);
        this.paused = MultiGauge.builder(PostboxMetrics.QUEUE_PAUSED)
                .description("1 when claiming of the queue is paused")
                .register(registry);
    }

    /**
     * Queries the statistics now and updates the gauges; returns false when the query failed. Called
     * by the poller; tests call it directly instead of waiting.
     */
    public boolean refresh() {
        List<QueueStats> current;
        try {
            current = stats.get();
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Postbox queue metrics: reading queue statistics failed; keeping the last values", e);
            }
            return false;
        }
        if (failing) {
            failing = false;
            log.info("Postbox queue metrics: reading queue statistics works again");
        }
        List<MultiGauge.Row<?>> depthRows = new ArrayList<>();
        List<MultiGauge.Row<?>> ageRows = new ArrayList<>();
        List<MultiGauge.Row<?>> dlqRows = new ArrayList<>();
        List<MultiGauge.Row<?>> pausedRows = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (QueueStats s : current) {
            QueueHolder holder = holders.computeIfAbsent(s.queue(), q -> new QueueHolder());
            holder.stats = s;
            seen.add(s.queue());
            Tags queue = Tags.of("queue", s.queue());
            depthRows.add(row(queue.and("state", "due"), holder, h -> h.stats.due()));
            depthRows.add(row(queue.and("state", "scheduled"), holder, h -> h.stats.scheduled()));
            depthRows.add(row(queue.and("state", "running"), holder, h -> h.stats.running()));
            ageRows.add(row(queue, holder, h -> h.stats.oldestDueAge().toMillis() / 1000.0));
            dlqRows.add(row(queue, holder, h -> h.stats.dead()));
            pausedRows.add(row(queue, holder, h -> h.stats.paused() ? 1 : 0));
        }
        holders.keySet().retainAll(seen);
        // overwrite=false: a queue's gauges keep reading its (stable) holder; only new or vanished
        // queues change the set of meters.
        depth.register(depthRows, false);
        oldestAge.register(ageRows, false);
        dlqDepth.register(dlqRows, false);
        paused.register(pausedRows, false);
        return true;
    }

    private static MultiGauge.Row<QueueHolder> row(Tags tags, QueueHolder holder, ToDoubleFunction<QueueHolder> f) {
        return MultiGauge.Row.of(tags, holder, f);
    }

    /** The statistics of one queue, replaced on each poll; gauges read through it. */
    private static final class QueueHolder {
        volatile QueueStats stats = new QueueStats("", 0, 0, 0, Duration.ZERO, 0, false);
    }

    @Override
    public void start() {
        poller.start();
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
