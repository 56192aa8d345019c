package dev.postbox.amqp.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Publishes one message at a time per channel, mandatory and confirmed: {@link #publish} returns
 * only when the broker has taken responsibility for the message (a publisher-confirm ack) and has
 * routed it to at least one queue (no {@code basic.return}). Channels are not thread-safe, so each
 * publish borrows a channel of its own from a pool and gives it back; a channel that failed in any
 * way is closed and never reused. The connection is opened on first use and reopened when it is
 * gone (the client's automatic recovery is turned off: a lost publish is the engine's to retry).
 */
public final class ConfirmedPublisher implements AutoCloseable {

    /** Why a publish did not succeed; the message says what the broker answered. */
    public static final class PublishFailure extends Exception {
        private static final long serialVersionUID = 1L;

        PublishFailure(String message, @Nullable Throwable cause) {
            super(message, cause);
        }
    }

    private final ConnectionFactory factory;
    private final Duration confirmTimeout;
    private final ConcurrentLinkedQueue<PooledChannel> idle = new ConcurrentLinkedQueue<>();
    private @Nullable Connection connection;
    private volatile boolean closed;

    public ConfirmedPublisher(ConnectionFactory factory, Duration confirmTimeout) {
        this.factory = factory.clone();
        this.factory.setAutomaticRecoveryEnabled(false);
        this.factory.setTopologyRecoveryEnabled(false);
        this.confirmTimeout = confirmTimeout;
    }

    /** Publishes and waits for the broker's confirm; throws with the broker's reason otherwise. */
    public void publish(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body)
            throws PublishFailure, InterruptedException {
        publish(exchange, routingKey, properties, body, null);
    }

    /**
     * As {@link #publish(String, String, AMQP.BasicProperties, byte[])}, waiting for the confirm no
     * longer than {@code budget} (what is left of the job attempt's time limit) when it is shorter.
     */
    public void publish(
            String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body, @Nullable Duration budget)
            throws PublishFailure, InterruptedException {
        Duration confirmTimeout = budget != null && budget.compareTo(this.confirmTimeout) < 0
                ? (budget.toMillis() < 1 ? Duration.ofMillis(1) : budget)
                : this.confirmTimeout;
        PooledChannel channel = borrow();
        boolean healthy = false;
        try {
            channel.returned = null;
            channel.channel.basicPublish(exchange, routingKey, true, properties, body);
            boolean acked = channel.channel.waitForConfirms(confirmTimeout.toMillis());
            if (channel.returned != null) {
                throw new PublishFailure(channel.returned, null);
            }
            if (!acked) {
                throw new PublishFailure("the broker refused the message (publisher confirm nack)", null);
            }
            healthy = true;
        } catch (TimeoutException e) {
            throw new PublishFailure("no publisher confirm within " + confirmTimeout.toMillis() + " ms", e);
        } catch (ShutdownSignalException e) {
            throw new PublishFailure("the broker closed the channel: " + reason(e), e);
        } catch (IOException e) {
            throw new PublishFailure("publishing failed: " + describe(e), e);
        } finally {
            if (healthy && !closed) {
                idle.add(channel);
            } else {
                channel.close();
            }
        }
    }

    private PooledChannel borrow() throws PublishFailure {
        PooledChannel channel;
        while ((channel = idle.poll()) != null) {
            if (channel.channel.isOpen()) {
                return channel;
            }
        }
        try {
            Channel c = connection().createChannel();
            if (c == null) {
                throw new PublishFailure("the broker has no channel left on this connection (channel-max)", null);
            }
            c.confirmSelect();
            PooledChannel pooled = new PooledChannel(c);
            c.addReturnListener(r -> pooled.returned = "the broker returned the message: " + r.getReplyCode() + " "
                    + r.getReplyText() + " (exchange '" + r.getExchange() + "', routing key '" + r.getRoutingKey()
                    + "'): no queue is bound for it");
            return pooled;
        } catch (IOException | TimeoutException e) {
            throw new PublishFailure("connecting to the broker failed: " + describe(e), e);
        }
    }

    private synchronized Connection connection() throws IOException, TimeoutException, PublishFailure {
        if (closed) {
            throw new PublishFailure("the relay is closed", null);
        }
        if (connection == null || !connection.isOpen()) {
            connection = factory.newConnection("postbox-relay");
        }
        return connection;
    }

    private static String describe(Exception e) {
        if (e.getCause() instanceof ShutdownSignalException s) {
            return reason(s);
        }
        String message = e.getMessage();
        return message != null ? message : e.getClass().getSimpleName();
    }

    /** The broker's reply text (e.g. {@code NOT_FOUND - no exchange 'x' in vhost '/'}), without the protocol dump. */
    private static String reason(ShutdownSignalException s) {
        Object reason = s.getReason();
        if (reason instanceof AMQP.Channel.Close close) {
            return close.getReplyCode() + " " + close.getReplyText();
        }
        if (reason instanceof AMQP.Connection.Close close) {
            return close.getReplyCode() + " " + close.getReplyText();
        }
        String message = s.getMessage();
        return message != null ? message : "the broker closed the channel";
    }

    @Override
    public synchronized void close() {
        closed = true;
        PooledChannel channel;
        while ((channel = idle.poll()) != null) {
            channel.close();
        }
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException | RuntimeException e) {
                // closing: nothing to do about it
            }
            connection = null;
        }
    }

    private static final class PooledChannel {
        final Channel channel;
        volatile @Nullable String returned;

        PooledChannel(Channel channel) {
            this.channel = channel;
        }

        void close() {
            try {
                if (channel.isOpen()) {
                    channel.close();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                // a failed channel: dropped either way
            }
        }
    }
}
