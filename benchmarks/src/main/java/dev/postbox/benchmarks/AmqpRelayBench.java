package dev.postbox.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.postbox.amqp.AmqpDestination;
import dev.postbox.amqp.AmqpRelay;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario amqp-relay: relay throughput to RabbitMQ against the same broker's client floor, in the
 * same run. The floor is a bare client publishing the same messages (JSON body, persistent, {@code
 * message-id} = the key, mandatory) with publisher confirms, pipelined on one channel: windows of
 * 1,000 publishes, each window's confirms awaited. The relay publishes each message on its worker's
 * channel and waits for its confirm before the job completes. Both go to durable queues of their
 * own, which are checked to hold exactly the messages sent.
 *
 * <p>The broker is the one on this machine ({@code bench.amqpHost}, default 127.0.0.1:5672,
 * guest/guest); it shares the CPUs with the engine and PostgreSQL.
 */
final class AmqpRelayBench {

    static final String NAME = "amqp-relay";

    private static final Logger log = LoggerFactory.getLogger(AmqpRelayBench.class);

    private static final int WINDOW = 1000;

    /** Size: {@code bench.amqpMessages}. */
    record Settings(int messages) {
        static Settings fromSystemProperties() {
            return new Settings(Integer.getInteger("bench.amqpMessages", 50_000));
        }
    }

    private AmqpRelayBench() {}

    static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(System.getProperty("bench.amqpHost", "127.0.0.1"));
        factory.setPort(Integer.getInteger("bench.amqpPort", 5672));
        factory.setUsername("guest");
        factory.setPassword("guest");
        return factory;
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String floorQueue = "bench-floor-" + suffix;
        String relayQueue = "bench-relay-" + suffix;
        try (Connection broker = factory().newConnection("postbox-bench");
                Channel admin = broker.createChannel()) {
            admin.queueDeclare(floorQueue, true, false, false, null);
            admin.queueDeclare(relayQueue, true, false, false, null);
            try {
                double floorSeconds = floor(broker, floorQueue, settings);
                log.info("amqp-relay: bare client {} messages/s", Env.round(settings.messages() / floorSeconds, 0));
                Map<String, Object> r;
                try (AmqpRelay relay = AmqpRelay.builder(factory())
                        .destination(AmqpDestination.queue("bench", relayQueue))
                        .build()) {
                    r = RelayRun.run(
                            env,
                            NAME,
                            relay,
                            settings.messages(),
                            i -> relay.message(
                                    "bench", Map.of("order", i, "status", "created", "amount", 4711), "relay-" + i));
                }
                RelayRun.compare(r, settings.messages(), floorSeconds);
                r.put("floorMessagesInQueue", (long)
                        admin.queueDeclarePassive(floorQueue).getMessageCount());
                r.put("relayMessagesInQueue", (long)
                        admin.queueDeclarePassive(relayQueue).getMessageCount());
                r.put(
                        "broker",
                        "RabbitMQ at " + factory().getHost() + ":" + factory().getPort());
                r.put("clientFloor", "one channel, publisher confirms awaited per window of " + WINDOW);
                return r;
            } finally {
                admin.queueDelete(floorQueue);
                admin.queueDelete(relayQueue);
            }
        }
    }

    /** The bare client: the relay's message properties, confirms awaited per window. */
    private static double floor(Connection broker, String queue, Settings settings) throws Exception {
        long t0 = System.nanoTime();
        try (Channel channel = broker.createChannel()) {
            channel.confirmSelect();
            for (int i = 0; i < settings.messages(); i++) {
                AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                        .messageId("floor-" + i)
                        .contentType("application/json")
                        .deliveryMode(2)
                        .headers(Map.of("postbox-key", "floor-" + i))
                        .build();
                String body = "{\"order\":" + i + ",\"status\":\"created\",\"amount\":4711}";
                channel.basicPublish("", queue, true, props, body.getBytes(StandardCharsets.UTF_8));
                if ((i + 1) % WINDOW == 0 || i == settings.messages() - 1) {
                    channel.waitForConfirmsOrDie(60_000);
                }
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
