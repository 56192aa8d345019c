package dev.postbox.nats.internal;

import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.OutcomeHandler;
import dev.postbox.RateLimits;
import dev.postbox.RelayDestination;
import dev.postbox.RelayMessage;
import dev.postbox.nats.NatsDestination;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Publishes a relay job to its destination's stream and waits for the stream's acknowledgement.
 * The {@code Nats-Msg-Id} is the job's stable key, the same on every attempt: a copy republished
 * within the stream's duplicate window (after a crash between the acknowledgement and the job's
 * completion) is acknowledged as a duplicate and not stored again. A destination at its rate limit
 * snoozes the job to its slot of the limit's line, without publishing.
 */
public final class JetStreamPublishHandler implements OutcomeHandler, AutoCloseable {

    private final Map<String, NatsDestination> destinations;
    private final Options options;
    private final Duration ackTimeout;
    private @Nullable Connection connection;
    private volatile boolean closed;
    private volatile Map<String, RateLimits.Bucket> buckets = Map.of();

    public JetStreamPublishHandler(Map<String, NatsDestination> destinations, Options options, Duration ackTimeout) {
        this.destinations = Map.copyOf(destinations);
        this.options = options;
        this.ackTimeout = ackTimeout;
    }

    /** Creates (or reconfigures) the shared bucket of each rate-limited destination. */
    public void install(RateLimits limits) {
        buckets = RelayDestination.buckets(limits, "nats", destinations.values());
    }

    @Override
    public JobOutcome attempt(Job job) throws Exception {
        Optional<String> named = job.endpoint();
        if (named.isEmpty()) {
            return JobOutcome.dead(
                    "relay job " + job.id() + " names no destination: enqueue it with NatsRelay.message");
        }
        String name = named.get();
        NatsDestination destination = destinations.get(name);
        if (destination == null) {
            return JobOutcome.retry("NATS destination '" + name + "' is not configured in this process;"
                    + " add it to the relay (it is retried, and dead-lettered when the budget ends)");
        }
        if (destination.maxPerSecond() > 0) {
            RateLimits.Bucket bucket = buckets.get(name);
            if (bucket == null) {
                return JobOutcome.retry("NATS destination '" + name + "' has a rate limit, but the relay is not"
                        + " installed in this engine: add it with Postbox.Builder.module(relay)");
            }
            RateLimits.Permits permits = bucket.take(1);
            if (permits.granted() == 0) {
                return JobOutcome.snooze(
                        permits.waitOf(0),
                        "NATS destination '" + name + "' is at its rate limit of " + destination.maxPerSecond() + "/s");
            }
        }
        RelayMessage message = RelayMessage.of(job);
        PublishOptions.Builder publish =
                PublishOptions.builder().messageId(message.key()).streamTimeout(ackTimeout);
        String expectedStream = destination.expectedStream();
        if (expectedStream != null) {
            publish.expectedStream(expectedStream);
        }
        Headers headers = new Headers();
        message.headers().forEach((header, value) -> headers.put(header, value));
        headers.put("content-type", RelayMessage.CONTENT_TYPE);
        try {
            PublishAck ack =
                    connection().jetStream().publish(destination.subject(), headers, message.body(), publish.build());
            if (ack.getStream() == null) {
                return JobOutcome.retry(failure(destination, "the acknowledgement names no stream"));
            }
            return JobOutcome.done();
        } catch (JetStreamApiException e) {
            return JobOutcome.retry(failure(
                    destination,
                    "the stream refused the message: " + e.getErrorCode() + "/" + e.getApiErrorCode() + " "
                            + e.getErrorDescription()));
        } catch (IOException e) {
            return JobOutcome.retry(failure(
                    destination,
                    "no acknowledgement from a stream (" + describe(e) + "); is a stream"
                            + " capturing the subject, and is the server reachable?"));
        }
    }

    private static String failure(NatsDestination d, String what) {
        return "NATS destination '" + d.name() + "' (subject '" + d.subject() + "'): " + what;
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private synchronized Connection connection() throws IOException, InterruptedException {
        if (closed) {
            throw new IOException("the relay is closed");
        }
        if (connection == null || connection.getStatus() == Connection.Status.CLOSED) {
            connection = Nats.connect(options);
        }
        return connection;
    }

    @Override
    public synchronized void close() throws InterruptedException {
        closed = true;
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
