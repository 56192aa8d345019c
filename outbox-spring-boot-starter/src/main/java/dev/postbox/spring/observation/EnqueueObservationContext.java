package dev.postbox.spring.observation;

import dev.postbox.JobRequest;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of a {@value PostboxObservations#ENQUEUE} observation: the request being written. Its
 * carrier collects the trace context a tracing handler injects (W3C {@code traceparent}, {@code
 * tracestate}, {@code baggage}), which is stored with the job as headers.
 */
public final class EnqueueObservationContext extends SenderContext<Map<String, String>> {

    private final JobRequest request;

    public EnqueueObservationContext(JobRequest request) {
        super(TraceCarrier::put, Kind.PRODUCER);
        this.request = request;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName("postbox");
    }

    /** The request as the caller gave it (without the trace headers). */
    public JobRequest request() {
        return request;
    }
}
