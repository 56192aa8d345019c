package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tiny kafka-relay run: both the bare producer and the relay deliver every record, and the ratio is written. */
class KafkaRelaySmokeTest {

    @TempDir
    Path results;

    @Test
    void kafkaRelayDeliversEveryRecordAndWritesItsRatioToTheProducerFloor() throws Exception {
        Env env = Env.create(results);
        Map<String, Object> r = KafkaRelayBench.run(env, new KafkaRelayBench.Settings(300, 2, 10, 100));
        env.write(r);
        env.writeSummary();

        assertThat(r.get("completed")).isEqualTo(true);
        assertThat(r.get("completedJobs")).isEqualTo(300L);
        assertThat(r.get("relayRecordsInTopic"))
                .as("one record per job, no duplicate")
                .isEqualTo(300L);
        assertThat(r.get("floorRecordsInTopic")).isEqualTo(300L);
        assertThat(((Number) r.get("messagesPerSecond")).doubleValue()).isPositive();
        assertThat(((Number) r.get("producerFloorMessagesPerSecond")).doubleValue())
                .isPositive();
        assertThat(((Number) r.get("ratioToProducerFloor")).doubleValue()).isPositive();
        assertThat(Files.readString(results.resolve("summary.md"))).contains("kafka relay ≥ 20,000 messages/s:");
    }
}
