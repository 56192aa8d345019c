package dev.postbox.amqp.internal;

import com.rabbitmq.client.AMQP;
import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.OutcomeHandler;
import dev.postbox.amqp.AmqpDestination;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Publishes a relay job to its destination. The AMQP {@code message-id} is the job's stable key, the
 * same on every attempt, so a consumer that deduplicates by it applies a message republished after
 * a crash (between the broker's confirm and the job's completion) once.
 */
public final class AmqpPublishHandler implements OutcomeHandler {

    /** Header with the job's stable key (also the message id), for consumers that read headers only. */
    public static final String KEY_HEADER = "postbox-key";

    /** Header with the job's ordering key, when it has one. */
    public static final String ORDERING_KEY_HEADER = "postbox-ordering-key";

    private final Map<String, AmqpDestination> destinations;
    private final ConfirmedPublisher publisher;

    public AmqpPublishHandler(Map<String, AmqpDestination> destinations, ConfirmedPublisher publisher) {
        this.destinations = Map.copyOf(destinations);
        this.publisher = publisher;
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
        try {
            publisher.publish(
                    destination.exchange(),
                    destination.routingKey(),
                    properties(job),
                    job.payloadJson().getBytes(StandardCharsets.UTF_8));
            return JobOutcome.done();
        } catch (ConfirmedPublisher.PublishFailure e) {
            return JobOutcome.retry(
                    "AMQP destination '" + name + "' (exchange '" + destination.exchange() + "'): " + e.getMessage());
        }
    }

    private static AMQP.BasicProperties properties(Job job) {
        Map<String, Object> headers = new HashMap<>();
        headers.put(KEY_HEADER, job.stableKey());
        job.orderingKey().ifPresent(k -> headers.put(ORDERING_KEY_HEADER, k));
        String traceparent = job.headers().get("traceparent");
        if (traceparent != null) {
            headers.put("traceparent", traceparent);
        }
        return new AMQP.BasicProperties.Builder()
                .messageId(job.stableKey())
                .contentType("application/json")
                .contentEncoding("utf-8")
                .deliveryMode(2)
                .appId("postbox")
                .timestamp(Date.from(job.createdAt()))
                .headers(headers)
                .build();
    }
}
