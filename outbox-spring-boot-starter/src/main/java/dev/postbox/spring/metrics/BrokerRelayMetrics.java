package dev.postbox.spring.metrics;

import dev.postbox.Job;
import dev.postbox.PostboxListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer metrics of one broker relay (Kafka, RabbitMQ or NATS), per destination, from the
 * engine's events for the relay's job kind. Tags: {@code broker} ({@code kafka}, {@code amqp}, {@code
 * nats}), {@code destination} (a name configured in this process, else {@code other}: bounded by the
 * configuration, never a topic, key or job id) and, on the counter, {@code outcome}:
 *
 * <ul>
 *   <li>{@code postbox.relay.messages} (counter): {@code sent} (the broker acknowledged, the job
 *       completed), {@code retried}, {@code dead}, {@code rate_limited} (snoozed for the
 *       destination's rate limit);
 *   <li>{@code postbox.relay.duration} (timer): the successful attempt's duration (for Kafka, the
 *       batch's, acknowledgement included).
 * </ul>
 */
public final class BrokerRelayMetrics implements PostboxListener {

    private final MeterRegistry registry;
    private final String broker;
    private final String kind;
    private final Set<String> destinations;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    public BrokerRelayMetrics(MeterRegistry registry, String broker, String kind, Set<String> destinations) {
        this.registry = registry;
        this.broker = broker;
        this.kind = kind;
        this.destinations = Set.copyOf(destinations);
    }

    /**
     * A relay's metrics in {@code registry}, or {@link PostboxListener#NO_OP} when there is no registry
     * (none, or not a unique one): what each relay's auto-configuration registers.
     */
    public static PostboxListener of(
            @Nullable MeterRegistry registry, String broker, String kind, Set<String> destinations) {
        return registry == null ? PostboxListener.NO_OP : new BrokerRelayMetrics(registry, broker, kind, destinations);
    }

    @Override
    public void completed(Job job, Duration duration) {
        if (!job.kind().equals(kind)) {
            return;
        }
        String destination = destination(job);
        count(destination, "sent");
        timers.computeIfAbsent(
                        destination,
                        d -> Timer.builder("postbox.relay.duration")
                                .description("Duration of successful relay attempts")
                                .tag("broker", broker)
                                .tag("destination", d)
                                .register(registry))
                .record(duration);
    }

    @Override
    public void failed(Job job, Throwable error, Duration retryIn) {
        if (job.kind().equals(kind)) {
            count(destination(job), "retried");
        }
    }

    @Override
    public void dead(Job job, String reason) {
        if (job.kind().equals(kind)) {
            count(destination(job), "dead");
        }
    }

    @Override
    public void snoozed(Job job, Duration delay) {
        if (job.kind().equals(kind)) {
            count(destination(job), "rate_limited");
        }
    }

    private String destination(Job job) {
        String name = job.endpoint().orElse("");
        return destinations.contains(name) ? name : "other";
    }

    private void count(String destination, String outcome) {
        counters.computeIfAbsent(
                        destination + '\n' + outcome,
                        k -> Counter.builder("postbox.relay.messages")
                                .description("Relay jobs by destination and outcome")
                                .tag("broker", broker)
                                .tag("destination", destination)
                                .tag("outcome", outcome)
                                .register(registry))
                .increment();
    }
}
