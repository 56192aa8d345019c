package dev.postbox.spring.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.QueueStats;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** More handler threads stuck in given-up attempts than tolerated make the process DOWN. */
class StuckThreadsHealthTest {

    private static final List<QueueStats> QUIET = List.of(new QueueStats("a", 0, 0, 0, Duration.ZERO, 0, false));

    @Test
    void stuckThreadsWithinTheLimitAreShownAndHealthy() {
        QueueHealth h =
                QueueHealth.assess(() -> QUIET, new QueueHealth.StuckThreads(2, 2), new PostboxHealthProperties());

        assertThat(h.status()).isEqualTo(QueueHealth.UP);
        assertThat(h.details()).containsEntry("stuckThreads", 2).containsEntry("stuckThreadLimit", 2);
    }

    @Test
    void moreStuckThreadsThanTheLimitAreDownNamingTheProperty() {
        QueueHealth h =
                QueueHealth.assess(() -> QUIET, new QueueHealth.StuckThreads(3, 2), new PostboxHealthProperties());

        assertThat(h.status()).isEqualTo(QueueHealth.DOWN);
        assertThat(h.details().get("reasons").toString())
                .contains("3 handler threads are stuck")
                .contains("postbox.worker.stuck-thread-limit (2)");
    }
}
