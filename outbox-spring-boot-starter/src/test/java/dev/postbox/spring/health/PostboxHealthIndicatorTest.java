package dev.postbox.spring.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.QueueStats;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class PostboxHealthIndicatorTest {

    private static PostboxHealthProperties properties() {
        PostboxHealthProperties p = new PostboxHealthProperties();
        p.setOldestAgeThreshold(Duration.ofMinutes(1));
        p.setDlqThreshold(10);
        return p;
    }

    private static Health health(PostboxHealthProperties p, QueueStats... stats) {
        return new PostboxHealthIndicator(() -> List.of(stats), p).health();
    }

    @Test
    void upWithinThresholdsAndDetailsShowNumbersAndThresholds() {
        Health h = health(
                properties(),
                new QueueStats("a", 1, 0, 0, Duration.ofSeconds(30), 4, false),
                new QueueStats("b", 0, 0, 0, Duration.ZERO, 6, true));
        assertThat(h.getStatus()).isEqualTo(Status.UP);
        assertThat(h.getDetails())
                .containsEntry("oldestAgeSeconds", 30.0)
                .containsEntry("oldestAgeThresholdSeconds", 60.0)
                .containsEntry("oldestAgeQueue", "a")
                .containsEntry("dlqDepth", 10L)
                .containsEntry("dlqThreshold", 10L)
                .containsEntry("pausedQueues", List.of("b"))
                .doesNotContainKey("reasons");
    }

    @Test
    void oldestAgeAboveTheSloIsOutOfService() {
        Health h = health(properties(), new QueueStats("a", 1, 0, 0, Duration.ofSeconds(61), 0, false));
        assertThat(h.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(h.getDetails().get("reasons").toString()).contains("postbox.health.oldest-age-threshold");
    }

    @Test
    void dlqAboveTheThresholdUsesTheConfiguredStatus() {
        PostboxHealthProperties p = properties();
        p.setDegradedStatus("DEGRADED");
        Health h = health(p, new QueueStats("a", 0, 0, 0, Duration.ZERO, 11, false));
        assertThat(h.getStatus().getCode()).isEqualTo("DEGRADED");
        assertThat(h.getDetails()).containsEntry("dlqDepth", 11L);
        assertThat(h.getDetails().get("reasons").toString()).contains("postbox.health.dlq-threshold");
    }

    @Test
    void unreadableStatisticsAreDown() {
        Health h = new PostboxHealthIndicator(
                        () -> {
                            throw new IllegalStateException("Connection refused");
                        },
                        properties())
                .health();
        assertThat(h.getStatus()).isEqualTo(Status.DOWN);
        assertThat(h.getDetails().get("error").toString()).contains("Connection refused");
    }
}
