package dev.postbox.spring.metrics;

import dev.postbox.Job;
import dev.postbox.PostboxListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Records engine events as Micrometer meters named in {@link PostboxMetrics}. Declared as a bean, it
 * is called by the engine through the starter's composite listener. Never throws.
 */
public class PostboxMetricsListener implements PostboxListener {

    private static final String RESCUED_DESCRIPTION = "Expired leases handled by the rescuer";

    private final MeterRegistry registry;
    private final boolean durationHistogram;

    /**
     * @param registry where the meters go
     * @param durationHistogram whether {@value PostboxMetrics#JOB_DURATION} publishes histogram
     *     buckets (for {@code histogram_quantile} across instances)
     */
    public PostboxMetricsListener(MeterRegistry registry, boolean durationHistogram) {
        this.registry = registry;
        this.durationHistogram = durationHistogram;
    }

    @Override
    public void enqueued(String queue, String kind, boolean created) {
        counter(
                        PostboxMetrics.JOBS_ENQUEUED,
                        "Jobs written by enqueue (duplicate: idempotency key already seen)",
                        Tags.of("queue", queue, "kind", kind, "outcome", created ? "created" : "duplicate"))
                .increment();
    }

    @Override
    public void claimed(String queue, int count) {
        counter(PostboxMetrics.JOBS_CLAIMED, "Jobs claimed by this worker", Tags.of("queue", queue))
                .increment(count);
    }

    @Override
    public void completed(Job job, Duration duration) {
        Tags tags = jobTags(job, "success");
        counter(PostboxMetrics.JOBS_COMPLETED, "Attempts that succeeded", tags).increment();
        Timer.builder(PostboxMetrics.JOB_DURATION)
                .description("Handler run time of successful attempts")
                .tags(tags)
                .publishPercentileHistogram(durationHistogram)
                .register(registry)
                .record(duration);
    }

    @Override
    public void failed(Job job, Throwable error, Duration retryIn) {
        counter(
                        PostboxMetrics.JOBS_FAILED,
                        "Attempts that failed and will be retried",
                        jobTags(job, "retry").and("exception", error.getClass().getSimpleName()))
                .increment();
    }

    @Override
    public void dead(Job job, String reason) {
        counter(
                        PostboxMetrics.JOBS_DEAD,
                        "Jobs moved to the dead-letter table",
                        jobTags(job, job.isLastAttempt() ? "exhausted" : "permanent"))
                .increment();
    }

    @Override
    public void snoozed(Job job, Duration delay) {
        counter(PostboxMetrics.JOBS_SNOOZED, "Jobs put back without spending an attempt", queueKind(job))
                .increment();
    }

    @Override
    public void unknownKind(Job job) {
        counter(PostboxMetrics.JOBS_UNKNOWN_KIND, "Claims of a kind without a handler in this process", queueKind(job))
                .increment();
    }

    @Override
    public void staleToken(long jobId, String operation) {
        counter(
                        PostboxMetrics.JOBS_STALE_TOKENS,
                        "Operations refused because their lease had moved on",
                        Tags.of("operation", operation))
                .increment();
    }

    @Override
    public void rescued(int retried, int dead) {
        counter(PostboxMetrics.LEASES_RESCUED, RESCUED_DESCRIPTION, Tags.of("outcome", "retried"))
                .increment(retried);
        counter(PostboxMetrics.LEASES_RESCUED, RESCUED_DESCRIPTION, Tags.of("outcome", "dead"))
                .increment(dead);
    }

    @Override
    public void rescuedUnstarted(int returned) {
        counter(PostboxMetrics.LEASES_RESCUED, RESCUED_DESCRIPTION, Tags.of("outcome", "unstarted"))
                .increment(returned);
    }

    private Counter counter(String name, String description, Tags tags) {
        return Counter.builder(name).description(description).tags(tags).register(registry);
    }

    private static Tags queueKind(Job job) {
        return Tags.of("queue", job.queue(), "kind", job.kind());
    }

    private static Tags jobTags(Job job, String outcome) {
        return Tags.of("queue", job.queue(), "kind", job.kind(), "outcome", outcome);
    }
}
