package dev.postbox.spring.endpoint;

import dev.postbox.DeadLetter;
import dev.postbox.DeadLetterFilter;
import dev.postbox.PostboxAdmin;
import dev.postbox.TenantAdmin;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntBiFunction;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postboxdeadletters} actuator endpoint. Every operation but the replay of one takes the
 * same filter: {@code queue}, {@code kind}, {@code endpoint} (exact), {@code error} (contained in the
 * last error, case-insensitively) and {@code deadFrom}/{@code deadTo} (ISO-8601 instants, {@code
 * [deadFrom, deadTo)}). Every operation also takes {@code tenant}: an id, or {@value
 * PostboxTenantsEndpoint#DEFAULT_TENANT} for the default tenant; it limits the operation to that
 * tenant's dead letters, whatever the rest of the filter says (docs/tenants.md).
 *
 * <ul>
 *   <li>{@code GET /actuator/postboxdeadletters?queue=&kind=&endpoint=&error=&deadFrom=&deadTo=&limit=}:
 *       the matching dead letters, newest first.
 *   <li>{@code POST /actuator/postboxdeadletters/{id}}: replays one dead letter (404 when unknown).
 *   <li>{@code POST /actuator/postboxdeadletters} with the filter as JSON: replays every match.
 *   <li>{@code DELETE /actuator/postboxdeadletters?<filter>}: purges every match.
 * </ul>
 *
 * Replay and purge by filter need at least one criterion, or {@code all=true}. Writes and deletes
 * are write operations; see {@link PostboxEndpoint} for access and audit.
 */
@Endpoint(id = "postboxdeadletters", defaultAccess = Access.READ_ONLY)
public class PostboxDeadLettersEndpoint {

    /** The most dead letters one list returns. */
    public static final int MAX_DEAD_LETTER_LIMIT = 1000;

    private static final Logger log = LoggerFactory.getLogger(PostboxDeadLettersEndpoint.class);

    private final PostboxAdmin admin;
    private final PostboxAdminProperties properties;
    private final AdminWrites writes;

    public PostboxDeadLettersEndpoint(PostboxAdmin admin, PostboxAdminProperties properties) {
        this.admin = admin;
        this.properties = properties;
        this.writes = new AdminWrites(properties);
    }

    /** Dead letters matching the filter, newest first; {@code limit} defaults to postbox.admin.dead-letter-limit. */
    @ReadOperation
    public List<DeadLetter> deadLetters(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable Instant deadFrom,
            @Nullable Instant deadTo,
            @Nullable Integer limit,
            @Nullable String tenant) {
        int max = RequestChecks.limit("limit", limit, properties.getDeadLetterLimit(), 1, MAX_DEAD_LETTER_LIMIT);
        DeadLetterFilter filter = new DeadLetterCriteria(queue, kind, endpoint, error, deadFrom, deadTo).filter();
        String named = RequestChecks.optional(tenant);
        return named == null
                ? admin.deadLetters(filter, max)
                : PostboxTenantsEndpoint.forTenant(admin, named).deadLetters(filter, max);
    }

    /**
     * Replays one dead letter: it runs again with a fresh attempt budget. With a {@code tenant}, only
     * a dead letter of that tenant (404 for another tenant's).
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> replay(
            @Selector long id, @Nullable String tenant, SecurityContext caller) {
        Map<String, @Nullable Object> parameters = new LinkedHashMap<>();
        parameters.put("id", id);
        parameters.put("tenant", tenant);
        return writes.run(caller, "replay", parameters, result -> {
            String named = RequestChecks.optional(tenant);
            TenantAdmin owner = named == null ? null : PostboxTenantsEndpoint.forTenant(admin, named);
            boolean replayed = owner != null ? owner.replay(id) : admin.replay(id);
            log.info("Postbox admin: replay of dead letter {} {}", id, replayed ? "done" : "found nothing");
            result.put("id", id);
            if (owner != null) {
                result.put("tenant", PostboxTenantsEndpoint.name(owner));
            }
            if (!replayed) {
                return AdminWrites.notFound(
                        result,
                        owner != null
                                ? "tenant " + PostboxTenantsEndpoint.name(owner) + " has no dead letter with id " + id
                                : "no dead letter with id " + id);
            }
            result.put("replayed", 1);
            return AdminWrites.ok(result);
        });
    }

    /** Replays every dead letter matching the filter (or all of them with {@code all: true}). */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> replayMatching(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable Instant deadFrom,
            @Nullable Instant deadTo,
            @Nullable Boolean all,
            @Nullable String tenant,
            SecurityContext caller) {
        return matching(
                "replay",
                "replayed",
                admin::replay,
                TenantAdmin::replay,
                new DeadLetterCriteria(queue, kind, endpoint, error, deadFrom, deadTo),
                all,
                tenant,
                caller);
    }

    /** Deletes every dead letter matching the filter (or all of them with {@code all=true}). */
    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> purge(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable Instant deadFrom,
            @Nullable Instant deadTo,
            @Nullable Boolean all,
            @Nullable String tenant,
            SecurityContext caller) {
        return matching(
                "purge",
                "purged",
                admin::purge,
                TenantAdmin::purge,
                new DeadLetterCriteria(queue, kind, endpoint, error, deadFrom, deadTo),
                all,
                tenant,
                caller);
    }

    /**
     * One bulk write on the dead letters the criteria match (of one tenant when {@code tenant} is
     * given): audited, logged, counted under {@code done}.
     */
    private WebEndpointResponse<Map<String, Object>> matching(
            String action,
            String done,
            ToIntFunction<DeadLetterFilter> write,
            ToIntBiFunction<TenantAdmin, DeadLetterFilter> tenantWrite,
            DeadLetterCriteria criteria,
            @Nullable Boolean all,
            @Nullable String tenant,
            SecurityContext caller) {
        Map<String, @Nullable Object> parameters = criteria.auditParameters(all);
        parameters.put("tenant", tenant);
        return writes.run(caller, action, parameters, result -> {
            DeadLetterFilter filter = criteria.filterOfBulkWrite(all);
            int count;
            String named = RequestChecks.optional(tenant);
            if (named == null) {
                count = write.applyAsInt(filter);
                log.info("Postbox admin: {} {} dead letters ({})", done, count, DeadLetterCriteria.describe(filter));
            } else {
                TenantAdmin owner = PostboxTenantsEndpoint.forTenant(admin, named);
                count = tenantWrite.applyAsInt(owner, filter);
                String name = PostboxTenantsEndpoint.name(owner);
                log.info(
                        "Postbox admin: {} {} dead letters of tenant {} ({})",
                        done,
                        count,
                        name,
                        DeadLetterCriteria.describe(filter));
                result.put("tenant", name);
            }
            result.put(done, count);
            return AdminWrites.ok(result);
        });
    }
}
