package dev.postbox.nats.internal;

import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.OutcomeHandler;
import dev.postbox.nats.NatsDestination;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Publishes a relay job to its destination's stream and waits for the stream's acknowledgement.
 * The {@code Nats-Msg-Id} is the job's stable key, the same on every attempt: a copy republished
 * within the stream's duplicate window (after a crash between the acknowledgement and the job's
 * completion) is acknowledged as a duplicate and not stored again.
 */
public final class JetStreamPublishHandler implements OutcomeHandler, AutoCloseable {

    /** Header with the job's stable key (also the Nats-Msg-Id). */
    public static final String KEY_HEADER = "Postbox-Key";

    /** Header with the job's ordering key, when it has one. */
    public static final String ORDERING_KEY_HEADER = "Postbox-Ordering-Key";

    private final Map<String, NatsDestination> destinations;
    private final Options options;
    private final Duration ackTimeout;
    private @Nullable Connection connection;
    private volatile boolean closed;

    public JetStreamPublishHandler(Map<String, NatsDestination> destinations, Options options, Duration ackTimeout) {
        this.destinations = Map.copyOf(destinations);
        this.options = options;
        this.ackTimeout = ackTimeout;
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
        PublishOptions.Builder publish =
                PublishOptions.builder().messageId(job.stableKey()).streamTimeout(ackTimeout);
        if (destination.expectedStream() != null) {
            publish.expectedStream(destination.expectedStream());
        }
        Headers headers = new Headers();
        headers.put(KEY_HEADER, job.stableKey());
        headers.put("Content-Type", "application/json");
        job.orderingKey().ifPresent(k -> headers.put(ORDERING_KEY_HEADER, k));
        String traceparent = job.headers().get("traceparent");
        if (traceparent != null) {
            headers.put("traceparent", traceparent);
        }
        try {
            PublishAck ack = connection()
                    .jetStream()
                    .publish(
                            destination.subject(),
                            headers,
                            job.payloadJson().getBytes(StandardCharsets.UTF_8),
                            publish.build());
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
