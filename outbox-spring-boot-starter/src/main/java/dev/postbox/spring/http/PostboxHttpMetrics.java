package dev.postbox.spring.http;

import dev.postbox.Job;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.webhook.Endpoint;
import dev.postbox.http.webhook.WebhookListener;
import dev.postbox.spring.internal.Poller;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Webhook delivery metrics: a {@link WebhookListener} that records the module's events as Micrometer
 * meters, and a poller that keeps {@value #ENDPOINT_DISABLED} and {@value #RATE_FACTOR} in step with
 * the endpoint and bucket tables (so every instance reports what another one changed). In Prometheus the dots become
 * underscores, counters get {@code _total} and timers {@code _seconds_count|_sum|_max}.
 */
public class PostboxHttpMetrics implements WebhookListener, SmartLifecycle {

    /**
     * Counter of delivery attempts; tags {@code endpoint}, {@code outcome} (done|retry|dead|disabled),
     * {@code status} (2xx|3xx|4xx|5xx, or none when no response arrived).
     */
    public static final String DELIVERIES = "postbox.http.deliveries";

    /** Timer of delivery attempts (connect to last byte); tags {@code endpoint}, {@code outcome}. */
    public static final String DELIVERY_DURATION = "postbox.http.delivery.duration";

    /**
     * Counter of deliveries that waited for rate-limit or in-flight permits and were snoozed without
     * spending an attempt; tag {@code endpoint}.
     */
    public static final String RATE_LIMITED = "postbox.http.rate.limited";

    /** Counter of 429 answers that cut an endpoint's cluster-wide rate; tag {@code endpoint}. */
    public static final String RATE_LOWERED = "postbox.http.rate.lowered";

    /**
     * Gauge of an endpoint's adaptive rate factor: 1 at its configured rate, lower while it recovers
     * from 429 cuts (at least {@code postbox.http.min-rate-factor}); tag {@code endpoint}
     * (rate-limited endpoints only; cluster-wide, polled).
     */
    public static final String RATE_FACTOR = "postbox.http.rate.factor";

    /**
     * Counter of deliveries lined up for an endpoint's permits in bulk (given later run times
     * before any worker claimed them, no attempt spent); tag {@code endpoint}.
     */
    public static final String RATE_LINED_UP = "postbox.http.rate.lined.up";

    /** Gauge, 1 while the endpoint is disabled, else 0; tag {@code endpoint} (cluster-wide, polled). */
    public static final String ENDPOINT_DISABLED = "postbox.http.endpoint.disabled";

    /**
     * Counter of endpoints disabled by this instance; tags {@code endpoint}, {@code cause}
     * (operator|gone|sustained_failure).
     */
    public static final String ENDPOINT_DISABLE_EVENTS = "postbox.http.endpoint.disable.events";

    /**
     * Counter of delivery jobs created by fan-out; tag {@code event} (the event type: the first {@value
     * #MAX_EVENT_TAGS} distinct types seen by this instance, then {@value #OTHER_EVENTS}).
     */
    public static final String FANOUT_DELIVERIES = "postbox.http.fanout.deliveries";

    /**
     * Most distinct {@code event} tag values per instance. Event types are chosen by the application
     * (and may come from its callers): without a bound, each new type would be a new time series.
     */
    public static final int MAX_EVENT_TAGS = 100;

    /** The {@code event} tag of event types beyond {@link #MAX_EVENT_TAGS}. */
    public static final String OTHER_EVENTS = "other";

    private static final Logger log = LoggerFactory.getLogger(PostboxHttpMetrics.class);

    private final MeterRegistry registry;
    private final Supplier<List<Endpoint>> endpoints;
    private final Supplier<Map<String, Double>> rateFactors;
    private final Map<String, AtomicInteger> disabled = new ConcurrentHashMap<>();
    private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();
    /**
     * Guards the disabled gauges against a poll that read the table before a disable or enable this
     * instance saw: events are counted, and a poll during which one came leaves the gauges to the
     * events (the next poll reads after them).
     */
    private final Object stateLock = new Object();

    private long stateEvents;
    private final Map<String, AtomicReference<Double>> factors = new ConcurrentHashMap<>();
    private final Map<String, Gauge> factorGauges = new ConcurrentHashMap<>();
    private final Poller poller;
    private final Set<String> eventTags = ConcurrentHashMap.newKeySet();
    private volatile boolean eventTagsFull;
    private volatile boolean failing;

    /**
     * @param endpoints the endpoint table (called on the poller thread only)
     * @param rateFactors the adaptive rate factor of each rate-limited endpoint (poller thread only)
     * @param interval how often the tables are read for {@value #ENDPOINT_DISABLED} and {@value
     *     #RATE_FACTOR}
     */
    public PostboxHttpMetrics(
            MeterRegistry registry,
            Supplier<List<Endpoint>> endpoints,
            Supplier<Map<String, Double>> rateFactors,
            Duration interval) {
        this.registry = registry;
        this.endpoints = endpoints;
        this.rateFactors = rateFactors;
        this.poller =
                new Poller("postbox-http-metrics", interval, "postbox.metrics.queue-poll-interval", this::refresh);
    }

    /** The status class of an attempt: 2xx, 3xx, 4xx, 5xx, or none without a response. */
    static String statusClass(@Nullable Integer status) {
        if (status == null || status < 100 || status > 599) {
            return "none";
        }
        return (status / 100) + "xx";
    }

    static String outcome(AttemptResult result) {
        return switch (result.outcome()) {
            case DONE -> "done";
            case RETRY -> "retry";
            case DEAD -> "dead";
            case DISABLE_ENDPOINT -> "disabled";
        };
    }

    @Override
    public void attempted(Job job, String endpoint, AttemptResult result) {
        String outcome = outcome(result);
        Counter.builder(DELIVERIES)
                .description("Webhook delivery attempts by outcome and status class")
                .tags(Tags.of("endpoint", endpoint, "outcome", outcome, "status", statusClass(result.statusCode())))
                .register(registry)
                .increment();
        Timer.builder(DELIVERY_DURATION)
                .description("Duration of webhook delivery attempts")
                .tags(Tags.of("endpoint", endpoint, "outcome", outcome))
                .register(registry)
                .record(result.duration());
    }

    @Override
    public void throttled(String endpoint, Duration wait) {
        Counter.builder(RATE_LIMITED)
                .description("Deliveries snoozed waiting for rate-limit or in-flight permits (no attempt spent)")
                .tag("endpoint", endpoint)
                .register(registry)
                .increment();
    }

    @Override
    public void rateLowered(String endpoint, double factor, Instant until) {
        Counter.builder(RATE_LOWERED)
                .description("429 answers that lowered an endpoint's cluster-wide rate")
                .tag("endpoint", endpoint)
                .register(registry)
                .increment();
    }

    @Override
    public void linedUp(String endpoint, int count) {
        Counter.builder(RATE_LINED_UP)
                .description("Deliveries lined up in bulk for an endpoint's rate-limit permits (no attempt spent)")
                .tag("endpoint", endpoint)
                .register(registry)
                .increment(count);
    }

    @Override
    public void endpointDisabled(String endpoint, DisableCause cause, String reason) {
        Counter.builder(ENDPOINT_DISABLE_EVENTS)
                .description("Webhook endpoints disabled by this instance")
                .tags(Tags.of("endpoint", endpoint, "cause", cause.name().toLowerCase(Locale.ROOT)))
                .register(registry)
                .increment();
        stateEvent(endpoint, 1);
    }

    @Override
    public void endpointEnabled(String endpoint, int resumed, int replayed) {
        stateEvent(endpoint, 0);
    }

    private void stateEvent(String endpoint, int value) {
        synchronized (stateLock) {
            stateEvents++;
            state(endpoint).set(value);
        }
    }

    @Override
    public void fannedOut(String eventType, long eventJobId, int created) {
        Counter.builder(FANOUT_DELIVERIES)
                .description("Delivery jobs created by fan-out of published events")
                .tag("event", eventTag(eventType))
                .register(registry)
                .increment(created);
    }

    /** The event type as a tag value, or {@value #OTHER_EVENTS} once {@value #MAX_EVENT_TAGS} types are tagged. */
    String eventTag(String eventType) {
        if (eventTags.contains(eventType)) {
            return eventType;
        }
        synchronized (eventTags) {
            if (eventTags.size() < MAX_EVENT_TAGS) {
                eventTags.add(eventType);
                return eventType;
            }
        }
        if (!eventTagsFull) {
            eventTagsFull = true;
            log.warn(
                    "More than {} distinct event types published: {} counts further types under event=\"{}\" to"
                            + " bound the metric's cardinality",
                    MAX_EVENT_TAGS,
                    FANOUT_DELIVERIES,
                    OTHER_EVENTS);
        }
        return OTHER_EVENTS;
    }

    private AtomicInteger state(String endpoint) {
        return disabled.computeIfAbsent(endpoint, name -> {
            AtomicInteger value = new AtomicInteger();
            gauges.put(
                    name,
                    Gauge.builder(ENDPOINT_DISABLED, value, AtomicInteger::get)
                            .description("1 while the webhook endpoint is disabled (its deliveries wait)")
                            .tag("endpoint", name)
                            .register(registry));
            return value;
        });
    }

    /**
     * Reads the endpoint and bucket tables and updates {@value #ENDPOINT_DISABLED} and {@value
     * #RATE_FACTOR}; returns false when a read failed (the last values stay). Removed endpoints, and
     * endpoints no longer rate-limited, lose their gauges. When this instance disabled or enabled
     * an endpoint while the tables were read, the disabled gauges keep the events' values until the
     * next poll (the read may predate them).
     */
    public boolean refresh() {
        List<Endpoint> current;
        Map<String, Double> currentFactors;
        long readFrom;
        synchronized (stateLock) {
            readFrom = stateEvents;
        }
        try {
            current = endpoints.get();
            currentFactors = rateFactors.get();
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Postbox webhook metrics: reading the endpoint table failed; keeping the last values", e);
            }
            return false;
        }
        failing = false;
        synchronized (stateLock) {
            if (stateEvents == readFrom) {
                Set<String> seen = new HashSet<>();
                for (Endpoint e : current) {
                    seen.add(e.name());
                    state(e.name()).set(e.isEnabled() ? 0 : 1);
                }
                for (String name : Set.copyOf(disabled.keySet())) {
                    if (!seen.contains(name)) {
                        disabled.remove(name);
                        Gauge gauge = gauges.remove(name);
                        if (gauge != null) {
                            registry.remove(gauge);
                        }
                    }
                }
            }
        }
        currentFactors.forEach((name, factor) -> factor(name).set(factor));
        for (String name : Set.copyOf(factors.keySet())) {
            if (!currentFactors.containsKey(name)) {
                factors.remove(name);
                Gauge gauge = factorGauges.remove(name);
                if (gauge != null) {
                    registry.remove(gauge);
                }
            }
        }
        return true;
    }

    private AtomicReference<Double> factor(String endpoint) {
        return factors.computeIfAbsent(endpoint, name -> {
            AtomicReference<Double> value = new AtomicReference<>(1.0);
            factorGauges.put(
                    name,
                    Gauge.builder(RATE_FACTOR, value, AtomicReference::get)
                            .description("Adaptive rate factor of the endpoint: 1 at its configured rate, lower"
                                    + " while it recovers from 429 answers")
                            .tag("endpoint", name)
                            .register(registry));
            return value;
        });
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

    /** After the endpoint registrar, so the first poll sees the configured endpoints. */
    @Override
    public int getPhase() {
        return PostboxHttpEndpointRegistrar.PHASE + 1;
    }
}
