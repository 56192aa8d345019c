package dev.postbox.spring.endpoint;

import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import java.util.List;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code postbox} actuator endpoint: {@code GET /actuator/postbox} is the summary per queue
 * (depth by state, oldest age, dead letters, paused) and the totals.
 *
 * <p>Each resource has its own endpoint with typed operations (see docs/operations.md): {@link
 * PostboxQueuesEndpoint postboxqueues}, {@link PostboxJobsEndpoint postboxjobs}, {@link
 * PostboxDeadLettersEndpoint postboxdeadletters}, {@link PostboxSchedulesEndpoint postboxschedules},
 * {@link PostboxWebhooksEndpoint postboxwebhooks} and {@link PostboxTenantsEndpoint postboxtenants}.
 *
 * <p><b>Access.</b> Every Postbox endpoint is read-only by default ({@link Access#READ_ONLY}): its
 * write and delete operations are not even mapped until the operator sets {@code
 * management.endpoint.<id>.access=unrestricted}, and then still answer 403 unless {@code
 * postbox.admin.write-enabled=true}. Every call of a write or delete operation (allowed, refused or
 * failed) writes one audit line to the logger {@value #AUDIT_LOGGER}: the principal ({@code
 * (anonymous)} without one), the action, its parameters and the HTTP status. Route that logger to
 * your audit trail; no parameter of these endpoints carries a secret.
 */
@Endpoint(id = "postbox", defaultAccess = Access.READ_ONLY)
public class PostboxEndpoint {

    /** The logger that receives one line per write operation, with the principal. */
    public static final String AUDIT_LOGGER = "dev.postbox.audit";

    /** HTTP 403, returned by write operations while they are disabled. */
    public static final int STATUS_FORBIDDEN = 403;

    /** HTTP 409, returned when re-encryption cannot run with the configured keys. */
    public static final int STATUS_CONFLICT = 409;

    private final PostboxAdmin admin;
    private final PostboxAdminProperties properties;

    public PostboxEndpoint(PostboxAdmin admin, PostboxAdminProperties properties) {
        this.admin = admin;
        this.properties = properties;
    }

    /** Summary of every queue and the totals. */
    @ReadOperation
    public Summary summary() {
        List<QueueSummary> queues =
                admin.queues().stream().map(QueueSummary::of).toList();
        long due = 0;
        long scheduled = 0;
        long running = 0;
        long dead = 0;
        double oldest = 0;
        for (QueueSummary q : queues) {
            due += q.due();
            scheduled += q.scheduled();
            running += q.running();
            dead += q.dead();
            oldest = Math.max(oldest, q.oldestAgeSeconds());
        }
        return new Summary(due, scheduled, running, dead, oldest, properties.isWriteEnabled(), queues);
    }

    /** Totals over every queue, and each queue. */
    public record Summary(
            long due,
            long scheduled,
            long running,
            long dead,
            double oldestAgeSeconds,
            boolean writeEnabled,
            List<QueueSummary> queues) {}

    /** One queue right now; {@code oldestAgeSeconds} is the SLO. */
    public record QueueSummary(
            String queue, long due, long scheduled, long running, double oldestAgeSeconds, long dead, boolean paused) {

        static QueueSummary of(QueueStats s) {
            return new QueueSummary(
                    s.queue(),
                    s.due(),
                    s.scheduled(),
                    s.running(),
                    s.oldestDueAge().toMillis() / 1000.0,
                    s.dead(),
                    s.paused());
        }
    }
}
