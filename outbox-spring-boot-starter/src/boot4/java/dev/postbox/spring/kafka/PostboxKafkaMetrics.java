package dev.postbox.spring.kafka;

import dev.postbox.kafka.KafkaDestination;
import dev.postbox.kafka.KafkaSendListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer metrics of the Kafka relay, per destination (tags {@code destination}, the configured
 * name, and {@code outcome}: low cardinality, never a topic, key or job id):
 *
 * <ul>
 *   <li>{@code postbox.kafka.records} (counter): records by outcome, {@code acknowledged}, {@code
 *       retried} (refused or unacknowledged, the job is retried), {@code dead} (refused for good) or
 *       {@code rate_limited} (held back by the destination's rate limit);
 *   <li>{@code postbox.kafka.send} (timer): time from send to the broker's acknowledgement.
 * </ul>
 */
public final class PostboxKafkaMetrics implements KafkaSendListener {

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    public PostboxKafkaMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void acknowledged(KafkaDestination destination, long nanos) {
        count(destination, "acknowledged");
        timers.computeIfAbsent(
                        destination.name(),
                        name -> Timer.builder("postbox.kafka.send")
                                .description("Time from sending a record to the broker's acknowledgement")
                                .tag("destination", name)
                                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(KafkaDestination destination, boolean permanent) {
        count(destination, permanent ? "dead" : "retried");
    }

    @Override
    public void rateLimited(KafkaDestination destination) {
        count(destination, "rate_limited");
    }

    private void count(KafkaDestination destination, String outcome) {
        counters.computeIfAbsent(
                        destination.name() + '\n' + outcome,
                        k -> Counter.builder("postbox.kafka.records")
                                .description("Records the Kafka relay sent, by outcome")
                                .tag("destination", destination.name())
                                .tag("outcome", outcome)
                                .register(registry))
                .increment();
    }
}
