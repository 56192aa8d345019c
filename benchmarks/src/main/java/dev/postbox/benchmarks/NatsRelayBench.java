package dev.postbox.benchmarks;

import dev.postbox.nats.NatsDestination;
import dev.postbox.nats.NatsRelay;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario nats-relay: relay throughput to NATS JetStream against the same server's client floor, in
 * the same run. The floor is a bare client publishing the same messages (JSON body, {@code
 * Nats-Msg-Id} = the key) asynchronously: windows of 1,000 publishes, each window's stream
 * acknowledgements awaited. The relay publishes each message on its worker thread and waits for the
 * acknowledgement before the job completes. Each goes to a file-backed stream of its own,
 * checked to hold exactly the messages sent.
 *
 * <p>The server is the one on this machine ({@code bench.natsServer}, default nats://127.0.0.1:4222);
 * it shares the CPUs with the engine and PostgreSQL.
 */
final class NatsRelayBench {

    static final String NAME = "nats-relay";

    private static final Logger log = LoggerFactory.getLogger(NatsRelayBench.class);

    private static final int WINDOW = 1000;

    /** Size: {@code bench.natsMessages}. */
    record Settings(int messages) {
        static Settings fromSystemProperties() {
            return new Settings(Integer.getInteger("bench.natsMessages", 50_000));
        }
    }

    private NatsRelayBench() {}

    static Options options() {
        return Options.builder()
                .server(System.getProperty("bench.natsServer", "nats://127.0.0.1:4222"))
                .build();
    }

    static Map<String, Object> run(Env env, Settings settings) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String floorStream = "BENCH_FLOOR_" + suffix.toUpperCase();
        String relayStream = "BENCH_RELAY_" + suffix.toUpperCase();
        String floorSubject = "bench." + suffix + ".floor";
        String relaySubject = "bench." + suffix + ".relay";
        try (Connection nats = Nats.connect(options())) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            addStream(jsm, floorStream, floorSubject);
            addStream(jsm, relayStream, relaySubject);
            try {
                double floorSeconds = floor(nats.jetStream(), floorSubject, settings);
                log.info("nats-relay: bare client {} messages/s", Env.round(settings.messages() / floorSeconds, 0));
                Map<String, Object> r;
                try (NatsRelay relay = NatsRelay.builder(options())
                        .destination(NatsDestination.of("bench", relaySubject, relayStream))
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
                r.put(
                        "floorMessagesInStream",
                        jsm.getStreamInfo(floorStream).getStreamState().getMsgCount());
                r.put(
                        "relayMessagesInStream",
                        jsm.getStreamInfo(relayStream).getStreamState().getMsgCount());
                r.put("broker", "NATS JetStream at " + options().getServers() + ", file storage");
                r.put("clientFloor", "asynchronous publishes, acknowledgements awaited per window of " + WINDOW);
                return r;
            } finally {
                jsm.deleteStream(floorStream);
                jsm.deleteStream(relayStream);
            }
        }
    }

    private static void addStream(JetStreamManagement jsm, String name, String subject) throws Exception {
        jsm.addStream(StreamConfiguration.builder()
                .name(name)
                .subjects(subject)
                .storageType(StorageType.File)
                .build());
    }

    /** The bare client: the relay's headers and message id, acknowledgements awaited per window. */
    private static double floor(JetStream js, String subject, Settings settings) throws Exception {
        long t0 = System.nanoTime();
        List<CompletableFuture<PublishAck>> window = new ArrayList<>();
        for (int i = 0; i < settings.messages(); i++) {
            Headers headers = new Headers();
            headers.put("postbox-key", "floor-" + i);
            headers.put("content-type", "application/json");
            String body = "{\"order\":" + i + ",\"status\":\"created\",\"amount\":4711}";
            window.add(js.publishAsync(
                    subject,
                    headers,
                    body.getBytes(StandardCharsets.UTF_8),
                    PublishOptions.builder().messageId("floor-" + i).build()));
            if (window.size() == WINDOW || i == settings.messages() - 1) {
                for (CompletableFuture<PublishAck> ack : window) {
                    ack.get(60, TimeUnit.SECONDS);
                }
                window.clear();
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
