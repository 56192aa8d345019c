package dev.postbox.spring.endpoint;

import dev.postbox.JobDetails;
import dev.postbox.PostboxAdmin;
import dev.postbox.TaggedJob;
import dev.postbox.TenantAdmin;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postboxjobs} actuator endpoint: {@code GET /actuator/postboxjobs/{id}} shows one job
 * with its attempt history, wherever it is (live, archive, dead; 404 when unknown), and {@code DELETE
 * /actuator/postboxjobs/{id}} cancels a waiting (pending or retry) job (a write operation; see {@link
 * PostboxEndpoint} for access and audit); {@code ?tenant=} limits both to that tenant's jobs (an
 * id, or {@value PostboxTenantsEndpoint#DEFAULT_TENANT}): another tenant's job is not found. {@code
 * GET /actuator/postboxjobs?tag=customer=42&tenant=acme} finds a tenant's jobs by their tags (live,
 * archived, dead; newest first). A job's result is shown with its payload, only when {@code
 * postbox.admin.show-payloads=true}; its tags always.
 */
@Endpoint(id = "postboxjobs", defaultAccess = Access.READ_ONLY)
public class PostboxJobsEndpoint {

    private static final Logger log = LoggerFactory.getLogger(PostboxJobsEndpoint.class);

    private final PostboxAdmin admin;
    private final PostboxAdminProperties properties;
    private final AdminWrites writes;

    public PostboxJobsEndpoint(PostboxAdmin admin, PostboxAdminProperties properties) {
        this.admin = admin;
        this.properties = properties;
        this.writes = new AdminWrites(properties);
    }

    /**
     * The job with its attempt history; {@code null} (404) when there is none (or, with {@code
     * tenant}, when the job is another tenant's).
     */
    @ReadOperation
    public @Nullable JobView job(@Selector long id, @Nullable String tenant) {
        String named = RequestChecks.optional(tenant);
        return (named == null
                        ? admin.job(id)
                        : PostboxTenantsEndpoint.forTenant(admin, named).job(id))
                .map(job -> JobView.of(job, properties.isShowPayloads()))
                .orElse(null);
    }

    /**
     * The jobs of {@code tenant} (an id or {@value PostboxTenantsEndpoint#DEFAULT_TENANT}; absent: the
     * default tenant) carrying every tag given as {@code tag=key=value} (repeated, or comma-separated:
     * a value with a comma cannot be searched here, use {@code PostboxAdmin.jobsTagged}), newest
     * first, at most {@code limit} (1 to 1000, default 100).
     */
    @ReadOperation
    public List<TaggedJob> jobs(String[] tag, @Nullable String tenant, @Nullable Integer limit) {
        Map<String, String> tags = new LinkedHashMap<>();
        for (String t : tag) {
            String text = t.trim();
            int split = text.indexOf('=');
            if (split <= 0) {
                throw new InvalidEndpointRequestException(
                        "tag must be key=value, e.g. tag=customer=42, was '" + text + "'", "bad tag");
            }
            tags.put(text.substring(0, split), text.substring(split + 1));
        }
        String key = PostboxTenantsEndpoint.key(tenant);
        int max = RequestChecks.limit("limit", limit, 100, 1, 1000);
        try {
            return admin.jobsTagged(key == null || key.isEmpty() ? null : key, tags, max);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(String.valueOf(e.getMessage()), "bad tag");
        }
    }

    /**
     * Cancels a waiting job; 404 when no pending or retry job has the id (of the tenant, when {@code
     * tenant} is given).
     */
    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> cancel(
            @Selector long id, @Nullable String tenant, SecurityContext caller) {
        Map<String, @Nullable Object> parameters = new LinkedHashMap<>();
        parameters.put("id", id);
        parameters.put("tenant", tenant);
        return writes.run(caller, "cancel", parameters, result -> {
            String named = RequestChecks.optional(tenant);
            TenantAdmin owner = named == null ? null : PostboxTenantsEndpoint.forTenant(admin, named);
            boolean cancelled = owner != null ? owner.cancel(id) : admin.cancel(id);
            log.info("Postbox admin: cancel of job {} {}", id, cancelled ? "done" : "found no waiting job");
            result.put("id", id);
            if (owner != null) {
                result.put("tenant", PostboxTenantsEndpoint.name(owner));
            }
            if (!cancelled) {
                return AdminWrites.notFound(
                        result,
                        owner != null
                                ? "tenant " + PostboxTenantsEndpoint.name(owner)
                                        + " has no waiting (pending or retry) job with id " + id
                                : "no waiting (pending or retry) job with id " + id);
            }
            result.put("cancelled", true);
            return AdminWrites.ok(result);
        });
    }

    /**
     * A job as the endpoint shows it: {@link JobDetails} with the payload left out unless {@code
     * postbox.admin.show-payloads=true}.
     */
    public record JobView(
            long id,
            String queue,
            String kind,
            String state,
            int attempts,
            int maxAttempts,
            @Nullable Instant runAt,
            @Nullable String lastError,
            Instant createdAt,
            @Nullable Instant finishedAt,
            boolean payloadShown,
            @Nullable String payloadJson,
            List<JobDetails.Attempt> history,
            @Nullable String resultJson,
            Map<String, String> tags,
            @Nullable Long timeLimitMillis) {

        /** A view without result, tags and time limit (as before they existed). */
        public JobView(
                long id,
                String queue,
                String kind,
                String state,
                int attempts,
                int maxAttempts,
                @Nullable Instant runAt,
                @Nullable String lastError,
                Instant createdAt,
                @Nullable Instant finishedAt,
                boolean payloadShown,
                @Nullable String payloadJson,
                List<JobDetails.Attempt> history) {
            this(
                    id,
                    queue,
                    kind,
                    state,
                    attempts,
                    maxAttempts,
                    runAt,
                    lastError,
                    createdAt,
                    finishedAt,
                    payloadShown,
                    payloadJson,
                    history,
                    null,
                    Map.of(),
                    null);
        }

        static JobView of(JobDetails j, boolean showPayload) {
            return new JobView(
                    j.id(),
                    j.queue(),
                    j.kind(),
                    j.state(),
                    j.attempts(),
                    j.maxAttempts(),
                    j.runAt(),
                    j.lastError(),
                    j.createdAt(),
                    j.finishedAt(),
                    showPayload,
                    showPayload ? j.payloadJson() : null,
                    j.history(),
                    showPayload ? j.resultJson() : null,
                    j.tags(),
                    j.timeLimitMillis());
        }
    }
}
