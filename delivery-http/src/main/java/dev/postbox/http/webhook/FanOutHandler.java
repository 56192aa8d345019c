package dev.postbox.http.webhook;

import dev.postbox.Job;
import dev.postbox.JobHandler;
import dev.postbox.JobRequest;
import dev.postbox.Outbox;
import dev.postbox.PermanentJobFailure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expands a published event ({@value #KIND} job: the event's payload, with its type in the job header
 * {@value WebhookDeliveryHandler#EVENT_TYPE_JOB_HEADER}) into one delivery job per subscribed endpoint, in
 * batches of {@code fanOutBatchSize}, each batch committed in its own transaction together with the
 * cursor in {@code outbox_fanout}. After a crash the job is retried and resumes at the cursor; child
 * idempotency keys ({@code <event's generated key>:<endpoint>}, see {@link #childKey}) make any
 * re-expanded batch a no-op, so every
 * subscriber gets exactly one delivery job.
 */
public final class FanOutHandler implements JobHandler {

    /** The job kind of published events. */
    public static final String KIND = "postbox.webhook.fanout";

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
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                int result = expandBatch(c, job, eventType, payloadJson);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private int expandBatch(Connection c, Job job, String eventType, String payloadJson) throws SQLException {
        // A row with another event's key is left over from an earlier event that had this job id (the
        // id sequence was rewound, e.g. by a restore): start afresh instead of taking it as expanded.
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO outbox_fanout (event_job_id, event_type, event_key)"
                        + " VALUES (?, ?, ?) ON CONFLICT (event_job_id) DO UPDATE SET event_type = EXCLUDED.event_type,"
                        + "   event_key = EXCLUDED.event_key, last_endpoint = NULL, expanded = 0, completed_at = NULL,"
                        + "   updated_at = now()"
                        + " WHERE EXCLUDED.event_key IS NOT NULL AND outbox_fanout.event_key IS DISTINCT FROM EXCLUDED.event_key")) {
            ps.setLong(1, job.id());
            ps.setString(2, eventType);
            ps.setString(3, job.installationId().isPresent() ? job.generatedKey() : null);
            ps.executeUpdate();
        }
        @Nullable String cursor;
        try (PreparedStatement ps = c.prepareStatement("SELECT last_endpoint, completed_at IS NOT NULL"
                + " FROM outbox_fanout WHERE event_job_id = ? FOR UPDATE")) {
            ps.setLong(1, job.id());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getBoolean(2)) {
                    return -1;
                }
                cursor = rs.getString(1);
            }
        }
        List<EndpointRegistry.Subscriber> subscribers =
                registry.subscribers(c, eventType, cursor, settings.fanOutBatchSize());
        if (subscribers.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE outbox_fanout SET completed_at = now(), updated_at = now() WHERE event_job_id = ?")) {
                ps.setLong(1, job.id());
                ps.executeUpdate();
            }
            return -1;
        }
        List<JobRequest> children = new ArrayList<>(subscribers.size());
        for (EndpointRegistry.Subscriber s : subscribers) {
            JobRequest.Builder child = JobRequest.builder(WebhookDeliveryHandler.KIND)
                    .queue(settings.queue())
                    .endpoint(s.name())
                    .rawJson(payloadJson)
                    .idempotencyKey(childKey(job, s.name()))
                    .headers(job.headers());
            if (s.maxAttempts() != null) {
                child.maxAttempts(s.maxAttempts());
            }
            children.add(child.build());
        }
        int created = (int) outbox.get().enqueueAll(c, children).stream()
                .filter(r -> r.created())
                .count();
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox_fanout SET last_endpoint = ?,"
                + " expanded = expanded + ?, updated_at = now() WHERE event_job_id = ?")) {
            ps.setString(1, subscribers.get(subscribers.size() - 1).name());
            ps.setInt(2, created);
            ps.setLong(3, job.id());
            ps.executeUpdate();
        }
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
