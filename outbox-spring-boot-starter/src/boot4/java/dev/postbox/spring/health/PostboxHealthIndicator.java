package dev.postbox.spring.health;

import dev.postbox.Postbox;
import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Postbox's health: {@code DOWN} when the queue statistics cannot be read (database unreachable or
 * schema missing); the configured degraded status (default {@code OUT_OF_SERVICE}) when the oldest
 * claimable job is older than {@code postbox.health.oldest-age-threshold} or the dead letters are more
 * than {@code postbox.health.dlq-threshold}; {@code DOWN} when more handler threads of this process
 * are stuck in attempts given up for their time limit than {@code postbox.worker.stuck-thread-limit}
 * (built from a {@link Postbox}); else {@code UP}. Details always show the numbers and the
 * thresholds. One aggregate query per call; use {@code management.endpoint.health.cache.time-to-live}
 * if probes call it often.
 */
public class PostboxHealthIndicator implements HealthIndicator {

    private final Supplier<List<QueueStats>> stats;
    private final PostboxHealthProperties properties;
    private final @Nullable Postbox engine;

    public PostboxHealthIndicator(PostboxAdmin admin, PostboxHealthProperties properties) {
        this(admin::queues, properties);
    }

    /** The queues' statistics and this process's stuck handler threads. */
    public PostboxHealthIndicator(Postbox postbox, PostboxHealthProperties properties) {
        this.stats = postbox.admin()::queues;
        this.properties = properties;
        this.engine = postbox;
    }

    /** Reads statistics from the given source (for tests and custom sources). */
    public PostboxHealthIndicator(Supplier<List<QueueStats>> stats, PostboxHealthProperties properties) {
        this.stats = stats;
        this.properties = properties;
        this.engine = null;
    }

    @Override
    public Health health() {
        Postbox engine = this.engine;
        QueueHealth judged = QueueHealth.assess(
                stats,
                engine == null
                        ? null
                        : new QueueHealth.StuckThreads(
                                engine.stuckThreads(), engine.config().stuckThreadLimit()),
                properties);
        Health.Builder builder = Health.status(new Status(judged.status()));
        if (judged.failure() != null) {
            builder.withException(judged.failure());
        }
        return builder.withDetails(judged.details()).build();
    }
}
