package dev.postbox.http.webhook;

import dev.postbox.Job;
import dev.postbox.JobHandler;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.OwnTransaction;
import dev.postbox.PermanentJobFailure;
import dev.postbox.TenantId;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expands a published event ({@value Webhooks#FAN_OUT_KIND} job: the event's payload, with its type in the job header
 * {@value WebhookDeliveryHandler#EVENT_TYPE_JOB_HEADER}) into one delivery job per subscribed endpoint, in
 * batches of {@code fanOutBatchSize}, each batch committed in its own transaction together with the
 * cursor in {@code outbox_fanout}. After a crash the job is retried and resumes at the cursor; child
 * idempotency keys ({@code <event's generated key>:<endpoint>}, see {@link #childKey}) make any
 * re-expanded batch a no-op, so every
 * subscriber gets exactly one delivery job. An event of a tenant reaches the subscribed endpoints of
 * that tenant only (an event of the default tenant, those of the default tenant), and its delivery
 * jobs belong to the tenant.
 */
final class FanOutHandler implements JobHandler {

    private static final Logger log = LoggerFactory.getLogger(FanOutHandler.class);

    private final DataSource dataSource;
    private final Supplier<Outbox> outbox;
    private final EndpointRegistry registry;
    private final WebhookListener listener;
    private final HttpDeliveryModule.Settings settings;

    FanOutHandler(
            DataSource dataSource,
            Supplier<Outbox> outbox,
            EndpointRegistry registry,
            WebhookListener listener,
            HttpDeliveryModule.Settings settings) {
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.registry = registry;
        this.listener = listener;
        this.settings = settings;
    }

    @Override
    public void handle(Job job) throws Exception {
        String eventType = job.headers().get(WebhookDeliveryHandler.EVENT_TYPE_JOB_HEADER);
        if (eventType == null) {
            throw new PermanentJobFailure("fan-out job " + job.id() + " lacks its event type header; publish"
                    + " events with Webhooks.publish(eventType, payload)");
        }
        // The event's payload is the job's payload, delivered as stored: nothing to parse here.
        String payloadJson = job.payloadJson();
        int created = 0;
        while (true) {
            int batch = expandBatch(job, eventType, payloadJson);
            if (batch < 0) {
                break;
            }
            created += batch;
        }
        log.debug("Event {} (job {}) fanned out to {} new delivery jobs", eventType, job.id(), created);
        listener.fannedOut(eventType, job.id(), created);
    }

    /** Expands one batch in one transaction; returns the jobs created, or -1 when the expansion is complete. */
    private int expandBatch(Job job, String eventType, String payloadJson) throws SQLException {
        return OwnTransaction.call(dataSource, c -> expandBatch(c, job, eventType, payloadJson));
    }

    private int expandBatch(Connection c, Job job, String eventType, String payloadJson) throws SQLException {
        FanOutStore.Progress progress =
                FanOutStore.start(c, job.id(), eventType, job.installationId().isPresent() ? job.generatedKey() : null);
        if (progress.complete()) {
            return -1;
        }
        @Nullable String cursor = progress.cursor();
        @Nullable String tenant = job.tenant().orElse(null);
        List<EndpointStore.Subscriber> subscribers =
                registry.subscribers(c, eventType, TenantId.key(tenant), cursor, settings.fanOutBatchSize());
        if (subscribers.isEmpty()) {
            FanOutStore.complete(c, job.id());
            return -1;
        }
        List<JobRequest> children = new ArrayList<>(subscribers.size());
        for (EndpointStore.Subscriber s : subscribers) {
            JobRequest.Builder child = JobRequest.builder(Webhooks.DELIVERY_KIND)
                    .queue(settings.queue())
                    .endpoint(s.name())
                    .rawJson(payloadJson)
                    .idempotencyKey(childKey(job, s.name()))
                    .tenant(tenant)
                    .headers(job.headers());
            if (s.maxAttempts() != null) {
                child.maxAttempts(s.maxAttempts());
            }
            children.add(child.build());
        }
        int created = (int) outbox.get().enqueueAll(c, children).stream()
                .filter(r -> r.created())
                .count();
        FanOutStore.advance(c, job.id(), subscribers.get(subscribers.size() - 1).name(), created);
        return created;
    }

    /**
     * The idempotency key (and so the webhook-id) of the event's copy for one endpoint: the event's
     * installation-unique {@link Job#generatedKey() generated key} and the endpoint name, so that a
     * rewound job id sequence or a second installation posting into the same inbox never reuses it. An
     * event created before the installation id existed keeps the legacy {@code <event job id>:<endpoint>}:
     * its copies may already have been created and sent under it.
     */
    static String childKey(Job event, String endpoint) {
        return event.installationId().isPresent() ? event.generatedKey() + ":" + endpoint : event.id() + ":" + endpoint;
    }
}
