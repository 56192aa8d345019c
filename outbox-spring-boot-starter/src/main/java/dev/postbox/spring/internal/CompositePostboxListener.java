package dev.postbox.spring.internal;

import dev.postbox.Job;
import dev.postbox.PostboxListener;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes engine events to every {@link PostboxListener} bean of the context (metrics, logging, ...).
 * The beans are looked up at the first event, not when the engine is built, so that a listener may
 * itself depend on the {@code Postbox} bean. A listener that throws is logged and skipped: one
 * faulty listener never fails a job.
 */
public final class CompositePostboxListener implements PostboxListener {

    private static final Logger log = LoggerFactory.getLogger(CompositePostboxListener.class);

    private final Supplier<List<PostboxListener>> lookup;
    private volatile @Nullable List<PostboxListener> delegates;

    public CompositePostboxListener(Supplier<List<PostboxListener>> lookup) {
        this.lookup = lookup;
    }

    private List<PostboxListener> delegates() {
        List<PostboxListener> current = delegates;
        if (current == null) {
            synchronized (this) {
                current = delegates;
                if (current == null) {
                    current = List.copyOf(lookup.get());
                    delegates = current;
                }
            }
        }
        return current;
    }

    private void each(String event, Consumer<PostboxListener> call) {
        for (PostboxListener listener : delegates()) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn(
                        "PostboxListener {} failed on '{}' and was skipped",
                        listener.getClass().getName(),
                        event,
                        e);
            }
        }
    }

    @Override
    public void enqueued(String queue, String kind, boolean created) {
        each("enqueued", l -> l.enqueued(queue, kind, created));
    }

    @Override
    public void claimed(String queue, int count) {
        each("claimed", l -> l.claimed(queue, count));
    }

    @Override
    public void completed(Job job, Duration duration) {
        each("completed", l -> l.completed(job, duration));
    }

    @Override
    public void failed(Job job, Throwable error, Duration retryIn) {
        each("failed", l -> l.failed(job, error, retryIn));
    }

    @Override
    public void dead(Job job, String reason) {
        each("dead", l -> l.dead(job, reason));
    }

    @Override
    public void snoozed(Job job, Duration delay) {
        each("snoozed", l -> l.snoozed(job, delay));
    }

    @Override
    public void unknownKind(Job job) {
        each("unknownKind", l -> l.unknownKind(job));
    }

    @Override
    public void staleToken(long jobId, String operation) {
        each("staleToken", l -> l.staleToken(jobId, operation));
    }

    @Override
    public void rescued(int retried, int dead) {
        each("rescued", l -> l.rescued(retried, dead));
    }

    @Override
    public void rescuedUnstarted(int returned) {
        each("rescuedUnstarted", l -> l.rescuedUnstarted(returned));
    }
}
