package dev.postbox.spring.health;

import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import java.time.Duration;
import java.util.ArrayList;
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
 * than {@code postbox.health.dlq-threshold}; else {@code UP}. Details always show the numbers and the
 * thresholds. One aggregate query per call; use {@code management.endpoint.health.cache.time-to-live}
 * if probes call it often.
 */
public class PostboxHealthIndicator implements HealthIndicator {

    private final Supplier<List<QueueStats>> stats;
    private final Duration oldestAgeThreshold;
    private final long dlqThreshold;
    private final Status degradedStatus;

    public PostboxHealthIndicator(PostboxAdmin admin, PostboxHealthProperties properties) {
        this(admin::queues, properties);
    }

    /** Reads statistics from the given source (for tests and custom sources). */
    public PostboxHealthIndicator(Supplier<List<QueueStats>> stats, PostboxHealthProperties properties) {
        this.stats = stats;
        this.oldestAgeThreshold = properties.getOldestAgeThreshold();
        this.dlqThreshold = properties.getDlqThreshold();
        this.degradedStatus = new Status(properties.getDegradedStatus());
    }

    @Override
    public Health health() {
        List<QueueStats> queues;
        try {
            queues = stats.get();
        } catch (RuntimeException e) {
            return Health.down(e)
                    .withDetail("reason", "queue statistics could not be read (database unreachable?)")
                    .build();
        }
        Duration oldest = Duration.ZERO;
        @Nullable String oldestQueue = null;
        long dead = 0;
        List<String> paused = new ArrayList<>();
        for (QueueStats q : queues) {
            if (q.oldestDueAge().compareTo(oldest) > 0) {
                oldest = q.oldestDueAge();
                oldestQueue = q.queue();
            }
            dead += q.dead();
            if (q.paused()) {
                paused.add(q.queue());
            }
        }
        List<String> reasons = new ArrayList<>();
        if (oldest.compareTo(oldestAgeThreshold) > 0) {
            reasons.add("oldest claimable job (queue '" + oldestQueue + "') has waited " + seconds(oldest)
                    + " s, more than postbox.health.oldest-age-threshold (" + seconds(oldestAgeThreshold) + " s)");
        }
        if (dead > dlqThreshold) {
            reasons.add(dead + " dead letters, more than postbox.health.dlq-threshold (" + dlqThreshold + ")");
        }
        Health.Builder builder = reasons.isEmpty() ? Health.up() : Health.status(degradedStatus);
        builder.withDetail("oldestAgeSeconds", seconds(oldest))
                .withDetail("oldestAgeThresholdSeconds", seconds(oldestAgeThreshold))
                .withDetail("dlqDepth", dead)
                .withDetail("dlqThreshold", dlqThreshold)
                .withDetail("queues", queues.size());
        if (oldestQueue != null) {
            builder.withDetail("oldestAgeQueue", oldestQueue);
        }
        if (!paused.isEmpty()) {
            builder.withDetail("pausedQueues", paused);
        }
        if (!reasons.isEmpty()) {
            builder.withDetail("reasons", reasons);
        }
        return builder.build();
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
