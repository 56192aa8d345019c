package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;

/**
 * {@link JobRequest} under random input: it either builds a request that holds what was given, or
 * throws {@link IllegalArgumentException}
 * with a message naming the field. Nothing else escapes.
 */
class JobRequestPropertiesTest {

    @Property(tries = 2000)
    void randomKeysNamesAndOptionsOnlyEverBuildOrFailWithIllegalArgument(
            @ForAll @StringLength(max = 700) String kind,
            @ForAll @StringLength(max = 200) String queue,
            @ForAll @StringLength(max = 700) String idempotencyKey,
            @ForAll @StringLength(max = 700) String orderingKey,
            @ForAll @IntRange(min = -200, max = 200) int priority,
            @ForAll @IntRange(min = -5, max = 5) int maxAttempts,
            @ForAll @IntRange(min = -1000, max = 1000) int delayMillis,
            @ForAll @StringLength(max = 40) String headerName,
            @ForAll @StringLength(max = 40) String headerValue) {
        JobRequest request;
        try {
            request = JobRequest.builder(kind)
                    .payload(Map.of())
                    .queue(queue)
                    .idempotencyKey(idempotencyKey)
                    .orderingKey(orderingKey)
                    .priority(priority)
                    .maxAttempts(maxAttempts)
                    .delay(Duration.ofMillis(delayMillis))
                    .header(headerName, headerValue)
                    .build();
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage())
                    .containsAnyOf(
                            "kind",
                            "queue",
                            "idempotencyKey",
                            "orderingKey",
                            "priority",
                            "maxAttempts",
                            "delay",
                            "header");
            return;
        }
        assertThat(request.kind()).isEqualTo(kind).hasSizeLessThanOrEqualTo(JobRequest.MAX_KIND_LENGTH);
        assertThat(request.queue()).isEqualTo(queue).hasSizeLessThanOrEqualTo(JobRequest.MAX_QUEUE_LENGTH);
        assertThat(QueueNames.valid(queue))
                .as("only names of the URL-safe set are accepted")
                .isTrue();
        assertThat(request.idempotencyKey()).hasValue(idempotencyKey);
        assertThat(request.orderingKey()).hasValue(orderingKey);
        assertThat(idempotencyKey.length()).isLessThanOrEqualTo(JobRequest.MAX_KEY_LENGTH);
        assertThat(idempotencyKey.chars()).noneMatch(Character::isISOControl);
        assertThat(orderingKey.chars()).noneMatch(Character::isISOControl);
        assertThat(kind.chars()).noneMatch(Character::isISOControl);
        assertThat(headerValue).doesNotContain("\0");
        assertThat(priority).isBetween(JobRequest.MIN_PRIORITY, JobRequest.MAX_PRIORITY);
        assertThat(maxAttempts).isPositive();
        assertThat(delayMillis).isNotNegative();
    }
}
