package dev.postbox.http.webhook;

import dev.postbox.EnqueueResult;
import dev.postbox.JobRequest;
import dev.postbox.JsonCodec;
import dev.postbox.Outbox;
import dev.postbox.Require;
import dev.postbox.http.internal.HeaderRules;
import dev.postbox.http.ssrf.SsrfGuard;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends webhooks in the caller's transaction: {@link #send} to one endpoint, {@link #publish} to
 * every endpoint subscribed to an event type. Each call writes one job; it is delivered if and only
 * if the transaction commits.
 *
 * <pre>{@code
 * @Transactional
 * public void pay(Invoice invoice) {
 *     invoices.markPaid(invoice);
 *     webhooks.publish("invoice.paid", new InvoicePaid(invoice.id(), invoice.total()));
 * }
 * }</pre>
 *
 * <p>Payloads are objects serialised with the engine's {@link JsonCodec}; a {@code String} payload is
 * taken as a JSON document as it is.
 *
 * <p>Tenants (docs/tenants.md): a delivery to an endpoint of a tenant belongs to that tenant; one to
 * an endpoint of the default tenant belongs to the engine's {@link dev.postbox.TenantResolver}'s
 * current tenant (none: the default tenant). A published event belongs to the tenant given to {@link
 * #publishFor}, else to the resolver's current tenant, and reaches the subscribed endpoints of that
 * tenant only. Every call is an enqueue, checked by the resolver: while the current tenant is A, a
 * delivery to tenant B's endpoint or an event published for B is refused with an {@link
 * IllegalArgumentException} naming both tenants.
 */
public final class Webhooks {

    /** The job kind of webhook deliveries: one job per endpoint and message. */
    public static final String DELIVERY_KIND = "postbox.webhook";

    /** The job kind of published events, each expanded into one delivery per subscribed endpoint. */
    public static final String FAN_OUT_KIND = "postbox.webhook.fanout";

    /** The HTTP header naming the event type of a published event's deliveries. */
    public static final String EVENT_TYPE_HEADER = "webhook-event-type";

    /** The job headers a delivery sends as HTTP headers (W3C trace context). */
    private static final List<String> TRACE_HEADERS = List.of("traceparent", "tracestate");

    private final Supplier<Outbox> outbox;
    private final EndpointRegistry registry;
    private final SsrfGuard guard;
    private final JsonCodec codec;
    private final HttpDeliveryModule.Settings settings;

    Webhooks(
            Supplier<Outbox> outbox,
            EndpointRegistry registry,
            SsrfGuard guard,
            JsonCodec codec,
            HttpDeliveryModule.Settings settings) {
        this.outbox = outbox;
        this.registry = registry;
        this.guard = guard;
        this.codec = codec;
        this.settings = settings;
    }

    /**
     * Enqueues a delivery of {@code payload} to the endpoint in the current Spring transaction.
     *
     * @param idempotencyKey the message's key, sent as {@code webhook-id} (prefixed with the endpoint
     *     name: {@code <endpoint>:<key>}); sending twice with one key to one endpoint yields one job.
     *     Null for a key derived from the job id
     * @throws UnknownEndpointException when no such endpoint is registered
     * @throws dev.postbox.http.ssrf.ForbiddenDestinationException when the endpoint's URL names a forbidden
     *     address
     * @throws PayloadTooLargeException when the JSON is over the limit
     * @throws IllegalArgumentException when the endpoint belongs to another tenant than the current
     *     one ({@link dev.postbox.TenantResolver})
     */
    public EnqueueResult send(String endpoint, Object payload, @Nullable String idempotencyKey) {
        return outbox.get().enqueue(delivery(endpoint, payload, idempotencyKey, Map.of()));
    }

    /** {@link #send(String, Object, String)} with extra job headers (for example {@code traceparent}). */
    public EnqueueResult send(
            String endpoint, Object payload, @Nullable String idempotencyKey, Map<String, String> headers) {
        return outbox.get().enqueue(delivery(endpoint, payload, idempotencyKey, headers));
    }

    /** {@link #send(String, Object, String)} on a JDBC connection whose transaction the caller controls. */
    public EnqueueResult send(Connection connection, String endpoint, Object payload, @Nullable String idempotencyKey) {
        return outbox.get().enqueue(connection, delivery(endpoint, payload, idempotencyKey, Map.of()));
    }

    /**
     * Publishes an event to every endpoint subscribed to {@code eventType}, in the current Spring
     * transaction. Writes one fan-out job, whatever the number of subscribers; after commit it is
     * expanded into one delivery per subscriber, in batches.
     *
     * @throws PayloadTooLargeException when the JSON is over the limit
     */
    public EnqueueResult publish(String eventType, Object payload) {
        return outbox.get().enqueue(fanOut(eventType, payload, null));
    }

    /** {@link #publish(String, Object)} with an idempotency key: publishing twice with one key yields one event. */
    public EnqueueResult publish(String eventType, Object payload, @Nullable String idempotencyKey) {
        return outbox.get().enqueue(fanOut(eventType, payload, idempotencyKey));
    }

    /** {@link #publish(String, Object)} on a JDBC connection whose transaction the caller controls. */
    public EnqueueResult publish(Connection connection, String eventType, Object payload) {
        return outbox.get().enqueue(connection, fanOut(eventType, payload, null));
    }

    /**
     * Publishes an event of one tenant, in the current Spring transaction: it reaches the endpoints of
     * that tenant subscribed to {@code eventType}, and no other tenant's. The idempotency key is
     * unique within the tenant.
     *
     * @param tenant a {@link dev.postbox.TenantId}
     * @throws IllegalArgumentException when the tenant is not a valid tenant id, or another tenant than
     *     the current one ({@link dev.postbox.TenantResolver})
     */
    public EnqueueResult publishFor(String tenant, String eventType, Object payload, @Nullable String idempotencyKey) {
        return outbox.get().enqueue(forTenant(tenant, fanOut(eventType, payload, idempotencyKey)));
    }

    /** {@link #publishFor(String, String, Object, String)} on a JDBC connection whose transaction the caller controls. */
    public EnqueueResult publishFor(
            Connection connection, String tenant, String eventType, Object payload, @Nullable String idempotencyKey) {
        return outbox.get().enqueue(connection, forTenant(tenant, fanOut(eventType, payload, idempotencyKey)));
    }

    private static JobRequest forTenant(String tenant, JobRequest event) {
        if (tenant == null) {
            throw new IllegalArgumentException("tenant may not be null: use publish(...) for the default tenant");
        }
        return event.toBuilder().tenant(tenant).build();
    }

    /** Builds (and validates) the delivery job request {@link #send} writes. */
    public JobRequest delivery(
            String endpoint, Object payload, @Nullable String idempotencyKey, Map<String, String> headers) {
        Require.notNull(endpoint, "endpoint");
        Endpoint target = registry.cached(endpoint).orElseThrow(() -> new UnknownEndpointException(endpoint));
        guard.validateUrl(target.url());
        if (idempotencyKey != null) {
            if (idempotencyKey.isBlank() || idempotencyKey.indexOf('.') >= 0 || idempotencyKey.length() > 200) {
                throw new IllegalArgumentException("idempotencyKey of " + idempotencyKey.length() + " characters is"
                        + " invalid: use 1 to 200 characters without '.', which delimits the signed content of"
                        + " Standard Webhooks");
            }
            // Sent as webhook-id on every attempt: a value no header can carry would fail each one.
            HeaderRules.checkValue("idempotencyKey for endpoint '" + endpoint + "'", "webhook-id", idempotencyKey);
        }
        // The trace context travels as headers of every attempt: a value no header can carry would fail each one.
        for (String traceHeader : TRACE_HEADERS) {
            String value = headers.get(traceHeader);
            if (value != null) {
                HeaderRules.checkValue("job headers for endpoint '" + endpoint + "'", traceHeader, value);
            }
        }
        String json = json(payload, "endpoint '" + endpoint + "'");
        JobRequest.Builder b = JobRequest.builder(DELIVERY_KIND)
                .queue(settings.queue())
                .endpoint(endpoint)
                .rawJson(json)
                .idempotencyKey(idempotencyKey == null ? null : endpoint + ":" + idempotencyKey)
                .tenant(target.tenant().orElse(null))
                .headers(headers);
        target.retryPolicy().ifPresent(p -> b.maxAttempts(p.maxAttempts()));
        return b.build();
    }

    private JobRequest fanOut(String eventType, Object payload, @Nullable String idempotencyKey) {
        if (eventType == null || eventType.isBlank() || eventType.length() > 200) {
            throw new IllegalArgumentException("eventType must be 1 to 200 characters, e.g. 'invoice.paid'");
        }
        // Sent as webhook-event-type with every copy.
        HeaderRules.checkValue("eventType", EVENT_TYPE_HEADER, eventType);
        String json = json(payload, "event '" + eventType + "'");
        return JobRequest.builder(FAN_OUT_KIND)
                .queue(settings.queue())
                .rawJson(json)
                .idempotencyKey(idempotencyKey == null ? null : "event:" + idempotencyKey)
                .header(WebhookDeliveryHandler.EVENT_TYPE_JOB_HEADER, eventType)
                .build();
    }

    private String json(Object payload, String target) {
        if (payload == null) {
            throw new IllegalArgumentException("payload may not be null (use Map.of() for an empty object)");
        }
        String json = payload instanceof String s ? s : codec.toJson(payload);
        long size = json.getBytes(StandardCharsets.UTF_8).length;
        if (size > settings.maxPayloadBytes()) {
            throw new PayloadTooLargeException(target, size, settings.maxPayloadBytes());
        }
        codec.validate(json);
        return json;
    }
}
