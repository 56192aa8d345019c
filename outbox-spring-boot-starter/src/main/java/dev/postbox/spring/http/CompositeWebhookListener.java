package dev.postbox.spring.http;

import dev.postbox.Job;
import dev.postbox.http.AttemptResult;
import dev.postbox.http.webhook.WebhookListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls every {@link WebhookListener} bean in order; a listener that throws is logged and skipped. */
final class CompositeWebhookListener implements WebhookListener {

    private static final Logger log = LoggerFactory.getLogger(CompositeWebhookListener.class);

    private final List<WebhookListener> listeners;

    CompositeWebhookListener(List<WebhookListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static WebhookListener of(List<WebhookListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> WebhookListener.NO_OP;
            default -> new CompositeWebhookListener(listeners);
        };
    }

    private void each(Consumer<WebhookListener> call) {
        for (WebhookListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                log.warn("WebhookListener {} failed", l.getClass().getName(), e);
            }
        }
    }

    @Override
    public void attempted(Job job, String endpoint, AttemptResult result) {
        each(l -> l.attempted(job, endpoint, result));
    }

    @Override
    public void endpointDisabled(String endpoint, DisableCause cause, String reason) {
        each(l -> l.endpointDisabled(endpoint, cause, reason));
    }

    @Override
    public void endpointEnabled(String endpoint, int resumed, int replayed) {
        each(l -> l.endpointEnabled(endpoint, resumed, replayed));
    }

    @Override
    public void rateLowered(String endpoint, double factor, Instant until) {
        each(l -> l.rateLowered(endpoint, factor, until));
    }

    @Override
    public void throttled(String endpoint, Duration wait) {
        each(l -> l.throttled(endpoint, wait));
    }

    @Override
    public void linedUp(String endpoint, int count) {
        each(l -> l.linedUp(endpoint, count));
    }

    @Override
    public void fannedOut(String eventType, long eventJobId, int created) {
        each(l -> l.fannedOut(eventType, eventJobId, created));
    }
}
