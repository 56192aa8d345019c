package dev.postbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.spring.http.PostboxHttpProperties;
import dev.postbox.spring.http.PostboxInboxProperties;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
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
 * the defaults it shows are the ones the properties really bind to (core's constants), and every
 * enumerated or duration property offers its values as hints.
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
        actual.put("postbox.notify-interval", bound.getNotifyInterval());
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
        actual.put("postbox.http.allowed-ports", http.getAllowedPorts());
        actual.put("postbox.http.denied-ports", http.getDeniedPorts());
        actual.put("postbox.http.max-response-body-bytes", http.getMaxResponseBodyBytes());
        actual.put("postbox.http.queue", http.getQueue());
        actual.put("postbox.http.max-payload-bytes", http.getMaxPayloadBytes());
        actual.put("postbox.http.fan-out-batch-size", http.getFanOutBatchSize());
        actual.put("postbox.http.park-delay", http.getParkDelay());
        actual.put(
                "postbox.http.global-rate-limit.burst",
                http.getGlobalRateLimit().getBurst());
        PostboxInboxProperties inbox = Binder.get(new org.springframework.core.env.StandardEnvironment())
                .bindOrCreate("postbox.inbox", PostboxInboxProperties.class);
        actual.put("postbox.inbox.tolerance", inbox.getTolerance());
        actual.put("postbox.inbox.table", inbox.getTable());
        actual.put("postbox.inbox.max-body-bytes", inbox.getMaxBodyBytes());
        actual.put("postbox.http.timeouts.connect", http.getTimeouts().getConnect());
        actual.put("postbox.http.timeouts.read", http.getTimeouts().getRead());
        actual.put("postbox.http.timeouts.call", http.getTimeouts().getCall());
        actual.put("postbox.http.retry.base", http.getRetry().getBase());
        actual.put("postbox.http.retry.cap", http.getRetry().getCap());
        actual.put("postbox.http.retry.max-attempts", http.getRetry().getMaxAttempts());
        actual.put(
                "postbox.http.sustained-failure.min-failures",
                http.getSustainedFailure().getMinFailures());
        actual.put(
                "postbox.http.sustained-failure.min-duration",
                http.getSustainedFailure().getMinDuration());

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
            } else if (expected instanceof List<?> list) {
                List<String> values = new ArrayList<>();
                documented.forEach(v -> values.add(v.asString()));
                assertThat(values).as(name).isEqualTo(list);
            } else if (expected instanceof Double fraction) {
                assertThat(documented.asDouble()).as(name).isEqualTo(fraction);
            } else if (expected instanceof Long number) {
                assertThat(documented.asLong()).as(name).isEqualTo(number);
            } else if (expected instanceof String text) {
                assertThat(documented.asString()).as(name).isEqualTo(text);
            } else {
                assertThat(documented.asInt()).as(name).isEqualTo(expected);
            }
            checked++;
        }
        assertThat(checked).isEqualTo(actual.size());
    }

    /**
     * Every enum property hints exactly its constants (as they are written in properties), and every
     * duration property hints valid durations that include its default: a new enum or duration
     * property without a hint in additional-spring-configuration-metadata.json fails here.
     */
    @Test
    void everyEnumAndDurationPropertyHasHints() throws Exception {
        JsonNode metadata = metadata();
        Map<String, List<String>> hints = new HashMap<>();
        for (JsonNode hint : metadata.get("hints")) {
            List<String> values = new java.util.ArrayList<>();
            hint.path("values").forEach(v -> values.add(v.get("value").asString()));
            hints.put(hint.get("name").asString(), values);
        }
        List<String> problems = new java.util.ArrayList<>();
        int enums = 0;
        int durations = 0;
        for (JsonNode property : metadata.get("properties")) {
            String name = property.get("name").asString();
            String type = property.path("type").asString("");
            List<String> values = hints.getOrDefault(name, List.of());
            Class<?> enumType = enumType(type);
            if (enumType != null) {
                enums++;
                List<String> constants = java.util.Arrays.stream(enumType.getEnumConstants())
                        .map(c -> ((Enum<?>) c)
                                .name()
                                .toLowerCase(java.util.Locale.ROOT)
                                .replace('_', '-'))
                        .toList();
                if (!new java.util.HashSet<>(values).equals(new java.util.HashSet<>(constants))) {
                    problems.add(name + " (" + type + ") hints " + values + " instead of its constants " + constants);
                }
            } else if (type.equals(Duration.class.getName())) {
                durations++;
                if (values.isEmpty()) {
                    problems.add(name + " (a duration) has no hint");
                    continue;
                }
                for (String value : values) {
                    try {
                        DurationStyle.detectAndParse(value);
                    } catch (IllegalArgumentException e) {
                        problems.add(name + " hints '" + value + "', which is not a duration");
                    }
                }
                if (property.hasNonNull("defaultValue")) {
                    Duration defaultValue = DurationStyle.detectAndParse(
                            property.get("defaultValue").asString());
                    if (values.stream()
                            .noneMatch(v -> DurationStyle.detectAndParse(v).equals(defaultValue))) {
                        problems.add(name + " hints " + values + " without its default " + defaultValue);
                    }
                }
            }
        }
        assertThat(problems)
                .as("hints in src/main/resources/META-INF/additional-spring-configuration-metadata.json")
                .isEmpty();
        assertThat(enums).as("enum properties checked").isGreaterThanOrEqualTo(4);
        assertThat(durations).as("duration properties checked").isGreaterThan(20);
    }

    private static Class<?> enumType(String type) {
        if (type.isEmpty() || type.contains("<")) {
            return null;
        }
        try {
            Class<?> c = Class.forName(type, false, ConfigurationMetadataTest.class.getClassLoader());
            return c.isEnum() ? c : null;
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}
