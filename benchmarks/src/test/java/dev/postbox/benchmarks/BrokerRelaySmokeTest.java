package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiny amqp-relay and nats-relay runs against the brokers on this machine: the bare client and the
 * relay each deliver every message exactly once, and the ratio is written.
 */
class BrokerRelaySmokeTest {

    @TempDir
    Path results;

    @Test
    void amqpRelayDeliversEveryMessageAndWritesItsRatioToTheClientFloor() throws Exception {
        Env env = Env.create(results);
        Map<String, Object> r = AmqpRelayBench.run(env, new AmqpRelayBench.Settings(300));
        env.write(r);
        env.writeSummary();

        assertThat(r.get("completed")).isEqualTo(true);
        assertThat(r.get("completedJobs")).isEqualTo(300L);
        assertThat(r.get("relayMessagesInQueue"))
                .as("one message per job, no duplicate")
                .isEqualTo(300L);
        assertThat(r.get("floorMessagesInQueue")).isEqualTo(300L);
        assertPositive(r, "messagesPerSecond", "clientFloorMessagesPerSecond", "ratioToClientFloor");
        assertThat(Files.readString(results.resolve("summary.md"))).contains("amqp-relay: ");
    }

    @Test
    void natsRelayDeliversEveryMessageAndWritesItsRatioToTheClientFloor() throws Exception {
        Env env = Env.create(results);
        Map<String, Object> r = NatsRelayBench.run(env, new NatsRelayBench.Settings(300));
        env.write(r);
        env.writeSummary();

        assertThat(r.get("completed")).isEqualTo(true);
        assertThat(r.get("completedJobs")).isEqualTo(300L);
        assertThat(r.get("relayMessagesInStream"))
                .as("one message per job, no duplicate")
                .isEqualTo(300L);
        assertThat(r.get("floorMessagesInStream")).isEqualTo(300L);
        assertPositive(r, "messagesPerSecond", "clientFloorMessagesPerSecond", "ratioToClientFloor");
        assertThat(Files.readString(results.resolve("summary.md"))).contains("nats-relay: ");
    }

    private static void assertPositive(Map<String, Object> r, String... keys) {
        for (String key : keys) {
            assertThat(((Number) r.get(key)).doubleValue()).as(key).isPositive();
        }
    }
}
