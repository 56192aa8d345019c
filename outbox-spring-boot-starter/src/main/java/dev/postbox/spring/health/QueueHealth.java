package dev.postbox.spring.health;

import dev.postbox.QueueStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The judgement behind the {@code postbox} health contributor, free of Spring Boot's health types
 * (which Spring Boot 4 moved to another package): each line's {@link PostboxHealthIndicator} turns it
 * into a {@code Health}.
 *
 * @param status {@code UP}, {@code DOWN} or the configured degraded status
 * @param details the numbers, the thresholds and the reasons, in a stable order
 * @param failure why the statistics could not be read ({@code DOWN} only)
 */
record QueueHealth(
        String status,
        Map<String, Object> details,
        @Nullable RuntimeException failure) {

    static final String UP = "UP";
    static final String DOWN = "DOWN";

    /** This process's handler threads stuck in attempts given up for their time limit, and how many it tolerates. */
    record StuckThreads(int stuck, int limit) {}

    static QueueHealth assess(Supplier<List<QueueStats>> stats, PostboxHealthProperties properties) {
        return assess(stats, null, properties);
    }

    static QueueHealth assess(
            Supplier<List<QueueStats>> stats, @Nullable StuckThreads threads, PostboxHealthProperties properties) {
        QueueHealth queues = assessQueues(stats, properties);
        if (threads == null) {
            return queues;
        }
        Map<String, Object> details = new LinkedHashMap<>(queues.details());
        details.put("stuckThreads", threads.stuck());
        details.put("stuckThreadLimit", threads.limit());
        if (threads.stuck() <= threads.limit()) {
            return new QueueHealth(queues.status(), details, queues.failure());
        }
        List<String> reasons = new ArrayList<>();
        if (details.get("reasons") instanceof List<?> earlier) {
            earlier.forEach(r -> reasons.add(String.valueOf(r)));
        }
        reasons.add(threads.stuck() + " handler threads are stuck in attempts given up for their time limit, more than"
                + " postbox.worker.stuck-thread-limit (" + threads.limit() + "): this process runs fewer jobs than"
                + " configured; fix the handler that ignores interrupts and restart it");
        details.put("reasons", reasons);
        return new QueueHealth(DOWN, details, queues.failure());
    }

    private static QueueHealth assessQueues(Supplier<List<QueueStats>> stats, PostboxHealthProperties properties) {
        List<QueueStats> queues;
        try {
            queues = stats.get();
        } catch (RuntimeException e) {
            return new QueueHealth(
                    DOWN, Map.of("reason", "queue statistics could not be read (database unreachable?)"), e);
        }
        Duration oldestAgeThreshold = properties.getOldestAgeThreshold();
        long dlqThreshold = properties.getDlqThreshold();
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
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("oldestAgeSeconds", seconds(oldest));
        details.put("oldestAgeThresholdSeconds", seconds(oldestAgeThreshold));
        details.put("dlqDepth", dead);
        details.put("dlqThreshold", dlqThreshold);
        details.put("queues", queues.size());
        if (oldestQueue != null) {
            details.put("oldestAgeQueue", oldestQueue);
        }
        if (!paused.isEmpty()) {
            details.put("pausedQueues", paused);
        }
        if (!reasons.isEmpty()) {
            details.put("reasons", reasons);
        }
        return new QueueHealth(reasons.isEmpty() ? UP : properties.getDegradedStatus(), details, null);
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
