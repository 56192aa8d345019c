package dev.postbox.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.postbox.Job;
import dev.postbox.JsonCodec;
import dev.postbox.QueueStats;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostboxMetricsListenerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PostboxMetricsListener listener = new PostboxMetricsListener(registry, true);

    static Job job(String queue, String kind, int attempt, int maxAttempts) {
        return Job.builder(7, kind, "{}", JsonCodec.jackson())
                .queue(queue)
                .attempt(attempt, maxAttempts)
                .build();
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    @Test
    void countsEveryEngineEventWithItsTags() {
        listener.enqueued("mail", "send", true);
        listener.enqueued("mail", "send", true);
        listener.enqueued("mail", "send", false);
        listener.claimed("mail", 3);
        listener.completed(job("mail", "send", 1, 5), Duration.ofMillis(120));
        listener.failed(job("mail", "send", 1, 5), new IllegalStateException("x"), Duration.ofSeconds(2));
        listener.dead(job("mail", "send", 5, 5), "attempt 5 of 5: x");
        listener.dead(job("mail", "send", 2, 5), "permanent");
        listener.snoozed(job("mail", "send", 1, 5), Duration.ofSeconds(1));
        listener.unknownKind(job("mail", "mystery", 1, 5));
        listener.staleToken(7, "complete");
        listener.rescued(2, 1);
        listener.rescuedUnstarted(40);

        assertThat(count(PostboxMetrics.JOBS_ENQUEUED, "queue", "mail", "kind", "send", "outcome", "created"))
                .isEqualTo(2);
        assertThat(count(PostboxMetrics.JOBS_ENQUEUED, "outcome", "duplicate")).isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_CLAIMED, "queue", "mail")).isEqualTo(3);
        assertThat(count(PostboxMetrics.JOBS_COMPLETED, "queue", "mail", "kind", "send", "outcome", "success"))
                .isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_FAILED, "outcome", "retry", "exception", "IllegalStateException"))
                .isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_DEAD, "outcome", "exhausted")).isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_DEAD, "outcome", "permanent")).isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_SNOOZED, "kind", "send")).isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_UNKNOWN_KIND, "kind", "mystery")).isEqualTo(1);
        assertThat(count(PostboxMetrics.JOBS_STALE_TOKENS, "operation", "complete"))
                .isEqualTo(1);
        assertThat(count(PostboxMetrics.LEASES_RESCUED, "outcome", "retried")).isEqualTo(2);
        assertThat(count(PostboxMetrics.LEASES_RESCUED, "outcome", "dead")).isEqualTo(1);
        assertThat(count(PostboxMetrics.LEASES_RESCUED, "outcome", "unstarted")).isEqualTo(40);

        var timer =
                registry.get(PostboxMetrics.JOB_DURATION).tags("kind", "send").timer();
        assertThat(timer.count()).isEqualTo(1);
        assertThat(timer.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(120);
    }

    @Test
    void queueGaugesFollowTheLatestStatisticsAndDropVanishedQueues() {
        List<QueueStats> stats = new ArrayList<>();
        stats.add(new QueueStats("mail", 4, 2, 1, Duration.ofMillis(2500), 3, false));
        stats.add(new QueueStats("hooks", 0, 0, 0, Duration.ZERO, 0, true));
        PostboxQueueMetrics gauges = new PostboxQueueMetrics(() -> List.copyOf(stats), registry, Duration.ofSeconds(5));

        assertThat(gauges.refresh()).isTrue();
        assertThat(gauge(PostboxMetrics.QUEUE_DEPTH, "queue", "mail", "state", "due"))
                .isEqualTo(4);
        assertThat(gauge(PostboxMetrics.QUEUE_DEPTH, "queue", "mail", "state", "scheduled"))
                .isEqualTo(2);
        assertThat(gauge(PostboxMetrics.QUEUE_DEPTH, "queue", "mail", "state", "running"))
                .isEqualTo(1);
        assertThat(gauge(PostboxMetrics.QUEUE_OLDEST_AGE, "queue", "mail")).isEqualTo(2.5);
        assertThat(gauge(PostboxMetrics.DLQ_DEPTH, "queue", "mail")).isEqualTo(3);
        assertThat(gauge(PostboxMetrics.QUEUE_PAUSED, "queue", "hooks")).isEqualTo(1);

        stats.set(0, new QueueStats("mail", 9, 0, 0, Duration.ofSeconds(30), 5, false));
        stats.remove(1);
        assertThat(gauges.refresh()).isTrue();
        assertThat(gauge(PostboxMetrics.QUEUE_DEPTH, "queue", "mail", "state", "due"))
                .isEqualTo(9);
        assertThat(gauge(PostboxMetrics.QUEUE_OLDEST_AGE, "queue", "mail")).isEqualTo(30);
        assertThat(gauge(PostboxMetrics.DLQ_DEPTH, "queue", "mail")).isEqualTo(5);
        assertThat(registry.find(PostboxMetrics.DLQ_DEPTH)
                        .tags("queue", "hooks")
                        .gauge())
                .isNull();
    }

    @Test
    void aFailedQueryKeepsTheLastValues() {
        boolean[] fail = {false};
        PostboxQueueMetrics gauges = new PostboxQueueMetrics(
                () -> {
                    if (fail[0]) {
                        throw new IllegalStateException("database down");
                    }
                    return List.of(new QueueStats("mail", 1, 0, 0, Duration.ZERO, 2, false));
                },
                registry,
                Duration.ofSeconds(5));
        assertThat(gauges.refresh()).isTrue();
        fail[0] = true;
        assertThat(gauges.refresh()).isFalse();
        assertThat(gauge(PostboxMetrics.DLQ_DEPTH, "queue", "mail")).isEqualTo(2);
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }
}
