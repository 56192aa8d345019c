package dev.postbox.amqp.internal;

import com.rabbitmq.client.AMQP;
import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.RelayMessage;
import dev.postbox.RelayPublishHandler;
import dev.postbox.amqp.AmqpDestination;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;

/**
 * Publishes a relay job to its destination. The AMQP {@code message-id} is the job's stable key, the
 * same on every attempt, so a consumer that deduplicates by it applies a message republished after
 * a crash (between the broker's confirm and the job's completion) once. Destinations and rate limits:
 * {@link RelayPublishHandler}.
 */
public final class AmqpPublishHandler extends RelayPublishHandler<AmqpDestination> {

    private final ConfirmedPublisher publisher;

    public AmqpPublishHandler(Map<String, AmqpDestination> destinations, ConfirmedPublisher publisher) {
        super("AMQP", "AmqpRelay", destinations);
        this.publisher = publisher;
    }

    @Override
    protected JobOutcome publish(Job job, AmqpDestination destination, RelayMessage message) throws Exception {
        try {
            publisher.publish(
                    destination.exchange(),
                    destination.routingKey(),
                    properties(job, message),
                    message.body(),
                    job.timeLeft().orElse(null));
            return JobOutcome.done();
        } catch (ConfirmedPublisher.PublishFailure e) {
            return JobOutcome.retry("AMQP destination '" + destination.name() + "' (exchange '" + destination.exchange()
                    + "'): " + e.getMessage());
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
