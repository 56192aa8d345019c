package dev.postbox.nats.internal;

import dev.postbox.Job;
import dev.postbox.JobOutcome;
import dev.postbox.RelayMessage;
import dev.postbox.RelayPublishHandler;
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
import org.jspecify.annotations.Nullable;

/**
 * Publishes a relay job to its destination's stream and waits for the stream's acknowledgement.
 * The {@code Nats-Msg-Id} is the job's stable key, the same on every attempt: a copy republished
 * within the stream's duplicate window (after a crash between the acknowledgement and the job's
 * completion) is acknowledged as a duplicate and not stored again. Destinations and rate limits:
 * {@link RelayPublishHandler}.
 */
public final class JetStreamPublishHandler extends RelayPublishHandler<NatsDestination> implements AutoCloseable {

    private final Options options;
    private final Duration ackTimeout;
    private @Nullable Connection connection;
    private volatile boolean closed;

    public JetStreamPublishHandler(Map<String, NatsDestination> destinations, Options options, Duration ackTimeout) {
        super("NATS", "NatsRelay", destinations);
        this.options = options;
        this.ackTimeout = ackTimeout;
    }

    @Override
    protected JobOutcome publish(Job job, NatsDestination destination, RelayMessage message) throws Exception {
        // never waits for the ack past the attempt's time limit
        Duration timeout = job.timeLeft()
                .filter(left -> left.compareTo(ackTimeout) < 0)
                .map(left -> left.isZero() ? Duration.ofMillis(1) : left)
                .orElse(ackTimeout);
        PublishOptions.Builder publish =
                PublishOptions.builder().messageId(message.key()).streamTimeout(timeout);
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
