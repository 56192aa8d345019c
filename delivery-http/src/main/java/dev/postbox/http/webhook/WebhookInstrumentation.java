package dev.postbox.http.webhook;

import dev.postbox.Job;
import dev.postbox.http.AttemptResult;
import java.util.Map;
import java.util.function.Function;

/**
 * Wraps each webhook send (one HTTP request of one delivery attempt) for tracing and timing. Unlike
 * a {@link WebhookListener}, it is around the send, on the thread that makes it, and chooses the
 * trace context the request carries.
 *
 * <p>{@link #NO_OP} is the default: the request carries the trace context stored with the job
 * ({@code traceparent}, {@code tracestate} job headers). The Spring Boot starter implements this
 * with Micrometer's Observation API, so that the request carries the context of its own client span
 * (see {@code docs/tracing.md}).
 */
public interface WebhookInstrumentation {

    /** An instrumentation that does nothing. */
    WebhookInstrumentation NO_OP = new WebhookInstrumentation() {};

    /**
     * Around one send of {@code job} to {@code endpoint}. An implementation calls {@code send}
     * exactly once and returns its result (or lets its exception pass); it passes the trace headers
     * the request is to carry ({@code traceparent}, optionally {@code tracestate}), or an empty map
     * to send the job's stored ones. Other entries of the map are ignored.
     */
    default AttemptResult send(Job job, String endpoint, Function<Map<String, String>, AttemptResult> send) {
        return send.apply(Map.of());
    }
}
