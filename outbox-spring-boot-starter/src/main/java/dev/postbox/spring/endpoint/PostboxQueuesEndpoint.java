package dev.postbox.spring.endpoint;

import dev.postbox.PostboxAdmin;
import dev.postbox.spring.endpoint.PostboxEndpoint.QueueSummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postboxqueues} actuator endpoint: {@code GET /actuator/postboxqueues} lists every queue
 * (as in the {@code postbox} summary), {@code GET /actuator/postboxqueues/{queue}} one (404 when it
 * has never held a job), and {@code POST /actuator/postboxqueues/{queue}} with {@code {"paused":
 * true}} or {@code false} pauses or resumes it cluster-wide (a write operation; see {@link
 * PostboxEndpoint} for access and audit).
 */
@Endpoint(id = "postboxqueues", defaultAccess = Access.READ_ONLY)
public class PostboxQueuesEndpoint {

    private static final Logger log = LoggerFactory.getLogger(PostboxQueuesEndpoint.class);

    private final PostboxAdmin admin;
    private final AdminWrites writes;

    public PostboxQueuesEndpoint(PostboxAdmin admin, PostboxAdminProperties properties) {
        this.admin = admin;
        this.writes = new AdminWrites(properties);
    }

    /** Every queue right now. */
    @ReadOperation
    public List<QueueSummary> queues() {
        return admin.queues().stream().map(QueueSummary::of).toList();
    }

    /** One queue; {@code null} (404) when unknown. */
    @ReadOperation
    public @Nullable QueueSummary queue(@Selector String queue) {
        return queues().stream()
                .filter(q -> q.queue().equals(queue))
                .findFirst()
                .orElse(null);
    }

    /** Pauses ({@code paused: true}) or resumes the queue: its jobs stay but none is claimed. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> paused(
            @Selector String queue, boolean paused, SecurityContext caller) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("queue", queue);
        return writes.run(caller, paused ? "pause" : "resume", parameters, result -> {
            String name = RequestChecks.requiredName("queue", queue);
            if (paused) {
                admin.pause(name);
            } else {
                admin.resume(name);
            }
            log.info("Postbox admin: queue '{}' {}", name, paused ? "paused" : "resumed");
            result.put("queue", name);
            result.put("paused", paused);
            return AdminWrites.ok(result);
        });
    }
}
