package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.spring.http.PostboxHttpProperties;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The generated configuration metadata (IDE completion) lists every property with a description,
 * and the defaults it shows are the ones the properties really bind to (core's constants).
 */
class ConfigurationMetadataTest {

    private static JsonNode metadata() throws Exception {
        try (InputStream in =
                ConfigurationMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in)
                    .as("generated META-INF/spring-configuration-metadata.json")
                    .isNotNull();
            return JsonMapper.builder().build().readTree(in);
        }
    }

    @Test
    void everyPropertyHasADescription() throws Exception {
        List<String> withoutDescription = new java.util.ArrayList<>();
        int count = 0;
        for (JsonNode property : metadata().get("properties")) {
            count++;
            if (!property.hasNonNull("description")) {
                withoutDescription.add(property.get("name").asString());
            }
        }
        assertThat(count).isGreaterThan(25);
        assertThat(withoutDescription).isEmpty();
    }

    @Test
    void documentedDefaultsAreTheBoundDefaults() throws Exception {
        PostboxProperties bound = Binder.get(new org.springframework.core.env.StandardEnvironment())
                .bindOrCreate("postbox", PostboxProperties.class);
        Map<String, Object> actual = new HashMap<>();
        actual.put("postbox.max-payload-bytes", bound.getMaxPayloadBytes());
        actual.put("postbox.idempotency-window", bound.getIdempotencyWindow());
        actual.put("postbox.unknown-kind-delay", bound.getUnknownKindDelay());
        actual.put("postbox.worker.concurrency", bound.getWorker().getConcurrency());
        actual.put("postbox.worker.claim-batch-size", bound.getWorker().getClaimBatchSize());
        actual.put("postbox.worker.poll-interval", bound.getWorker().getPollInterval());
        actual.put("postbox.worker.visibility-timeout", bound.getWorker().getVisibilityTimeout());
        actual.put("postbox.worker.heartbeat-interval", bound.getWorker().getHeartbeatInterval());
        actual.put("postbox.worker.rescue-interval", bound.getWorker().getRescueInterval());
        actual.put("postbox.worker.completion-batch-size", bound.getWorker().getCompletionBatchSize());
        actual.put("postbox.worker.completion-flush-interval", bound.getWorker().getCompletionFlushInterval());
        actual.put("postbox.worker.shutdown-grace", bound.getWorker().getShutdownGrace());
        actual.put("postbox.worker.maintenance-interval", bound.getWorker().getMaintenanceInterval());
        actual.put("postbox.worker.slow-attempt-threshold", bound.getWorker().getSlowAttemptThreshold());
        actual.put(
                "postbox.worker.lane-weights.high",
                bound.getWorker().getLaneWeights().getHigh());
        actual.put(
                "postbox.worker.lane-weights.normal",
                bound.getWorker().getLaneWeights().getNormal());
        actual.put(
                "postbox.worker.lane-weights.low",
                bound.getWorker().getLaneWeights().getLow());
        actual.put("postbox.retry.base", bound.getRetry().getBase());
        actual.put("postbox.retry.cap", bound.getRetry().getCap());
        actual.put("postbox.retry.max-attempts", bound.getRetry().getMaxAttempts());
        actual.put("postbox.archive.retention", bound.getArchive().getRetention());
        actual.put("postbox.archive.partitions-ahead", bound.getArchive().getPartitionsAhead());
        PostboxHttpProperties http = Binder.get(new org.springframework.core.env.StandardEnvironment())
                .bindOrCreate("postbox.http", PostboxHttpProperties.class);
        actual.put("postbox.http.max-permit-wait", http.getMaxPermitWait());
        actual.put("postbox.http.rate-recovery", http.getRateRecovery());
        actual.put("postbox.http.min-rate-factor", http.getMinRateFactor());

        int checked = 0;
        for (JsonNode property : metadata().get("properties")) {
            String name = property.get("name").asString();
            if (!actual.containsKey(name)) {
                continue;
            }
            assertThat(property.hasNonNull("defaultValue"))
                    .as(name + " documents its default")
                    .isTrue();
            JsonNode documented = property.get("defaultValue");
            Object expected = actual.get(name);
            if (expected instanceof Duration duration) {
                assertThat(DurationStyle.detectAndParse(documented.asString()))
                        .as(name)
                        .isEqualTo(duration);
            } else if (expected instanceof Double fraction) {
                assertThat(documented.asDouble()).as(name).isEqualTo(fraction);
            } else {
                assertThat(documented.asInt()).as(name).isEqualTo(expected);
            }
            checked++;
        }
        assertThat(checked).isEqualTo(actual.size());
    }
}
