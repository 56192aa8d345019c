package dev.postbox.spring.observation;

import dev.postbox.Job;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of a {@value PostboxObservations#WEBHOOK_SEND} observation: one request of a job to
 * an endpoint. Its carrier collects the trace context a tracing handler injects; the request sends
 * its {@code traceparent} and {@code tracestate} (never its baggage: it may hold internal data).
 */
public final class WebhookSendObservationContext extends SenderContext<Map<String, String>> {

    private final Job job;
    private final String endpoint;

    public WebhookSendObservationContext(Job job, String endpoint) {
        super(TraceCarrier::put, Kind.CLIENT);
        this.job = job;
        this.endpoint = endpoint;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName(endpoint);
    }

    public Job job() {
        return job;
    }

    /** The endpoint's name. */
    public String endpoint() {
        return endpoint;
    }
}
