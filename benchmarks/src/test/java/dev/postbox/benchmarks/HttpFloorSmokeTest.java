package dev.postbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 300 signed requests from the bare client, 300 deliveries from Postbox, 300 bare again, to a receiver JVM. */
class HttpFloorSmokeTest {

    @TempDir
    Path results;

    @Test
    void postsTheSameSignedRequestsBareAndThroughPostboxToAReceiverInItsOwnJvm() throws Exception {
        Env env = Env.create(results);

        Map<String, Object> r = HttpFloor.run(env, 300);

        assertThat(r.get("completed")).isEqualTo(true);
        assertThat(r.get("received")).isEqualTo(900); // all three passes reached the other JVM
        assertThat(r.get("signaturesVerified")).isEqualTo(9); // every 100th, bare and Postbox alike
        assertThat(r.get("signatureFailures")).isEqualTo(0);
        assertThat(((Number) r.get("httpFloorPerSecond")).doubleValue()).isPositive();
        assertThat(((Number) r.get("httpFloorPerSecondBefore")).doubleValue()).isPositive();
        assertThat(((Number) r.get("httpFloorPerSecondAfter")).doubleValue()).isPositive();
        assertThat(((Number) r.get("ratioToHttpFloor")).doubleValue()).isPositive();
    }
}
