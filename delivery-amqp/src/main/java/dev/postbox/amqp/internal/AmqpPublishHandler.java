package dev.postbox.amqp.internal;

import com.rabbitmq.client.AMQP;
import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.OutcomeHandler;
import dev.postbox.RateLimits;
import dev.postbox.RelayDestination;
import dev.postbox.RelayMessage;
import dev.postbox.amqp.AmqpDestination;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Publishes a relay job to its destination. The AMQP {@code message-id} is the job's stable key, the
 * same on every attempt, so a consumer that deduplicates by it applies a message republished after
 * a crash (between the broker's confirm and the job's completion) once. A destination at its rate
 * limit snoozes the job to its slot of the limit's line, without publishing.
 */
public final class AmqpPublishHandler implements OutcomeHandler {

    private final Map<String, AmqpDestination> destinations;
    private final ConfirmedPublisher publisher;
    private volatile Map<String, RateLimits.Bucket> buckets = Map.of();

    public AmqpPublishHandler(Map<String, AmqpDestination> destinations, ConfirmedPublisher publisher) {
        this.destinations = Map.copyOf(destinations);
        this.publisher = publisher;
    }

    /** Creates (or reconfigures) the shared bucket of each rate-limited destination. */
    public void install(RateLimits limits) {
        buckets = RelayDestination.buckets(limits, "amqp", destinations.values());
    }

    @Override
    public JobOutcome attempt(Job job) throws Exception {
        Optional<String> named = job.endpoint();
        if (named.isEmpty()) {
            return JobOutcome.dead(
                    "relay job " + job.id() + " names no destination: enqueue it with AmqpRelay.message");
        }
        String name = named.get();
        AmqpDestination destination = destinations.get(name);
        if (destination == null) {
            return JobOutcome.retry("AMQP destination '" + name + "' is not configured in this process;"
                    + " add it to the relay (it is retried, and dead-lettered when the budget ends)");
        }
        if (destination.maxPerSecond() > 0) {
            RateLimits.Bucket bucket = buckets.get(name);
            if (bucket == null) {
                return JobOutcome.retry("AMQP destination '" + name + "' has a rate limit, but the relay is not"
                        + " installed in this engine: add it with Postbox.Builder.module(relay)");
            }
            RateLimits.Permits permits = bucket.take(1);
            if (permits.granted() == 0) {
                return JobOutcome.snooze(
                        permits.waitOf(0),
                        "AMQP destination '" + name + "' is at its rate limit of " + destination.maxPerSecond() + "/s");
            }
        }
        RelayMessage message = RelayMessage.of(job);
        try {
            publisher.publish(
                    destination.exchange(), destination.routingKey(), properties(job, message), message.body());
            return JobOutcome.done();
        } catch (ConfirmedPublisher.PublishFailure e) {
            return JobOutcome.retry(
                    "AMQP destination '" + name + "' (exchange '" + destination.exchange() + "'): " + e.getMessage());
        }
    }

    private static AMQP.BasicProperties properties(Job job, RelayMessage message) {
        return new AMQP.BasicProperties.Builder()
                .messageId(message.key())
                .contentType(RelayMessage.CONTENT_TYPE)
                .contentEncoding("utf-8")
                .deliveryMode(2)
                .appId("postbox")
                .timestamp(Date.from(job.createdAt()))
                .headers(new HashMap<String, Object>(message.headers()))
                .build();
    }
}
