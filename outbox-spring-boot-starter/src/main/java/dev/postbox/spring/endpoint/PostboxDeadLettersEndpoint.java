package dev.postbox.spring.endpoint;

import dev.postbox.DeadLetter;
import dev.postbox.DeadLetterFilter;
import dev.postbox.PostboxAdmin;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
 * [deadFrom, deadTo)}).
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
            @Nullable Integer limit) {
        int max = RequestChecks.limit("limit", limit, properties.getDeadLetterLimit(), 1, MAX_DEAD_LETTER_LIMIT);
        return admin.deadLetters(new DeadLetterCriteria(queue, kind, endpoint, error, deadFrom, deadTo).filter(), max);
    }

    /** Replays one dead letter: it runs again with a fresh attempt budget. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> replay(@Selector long id, SecurityContext caller) {
        return writes.run(caller, "replay", Map.of("id", id), result -> {
            boolean replayed = admin.replay(id);
            log.info("Postbox admin: replay of dead letter {} {}", id, replayed ? "done" : "found nothing");
            result.put("id", id);
            if (!replayed) {
                return AdminWrites.notFound(result, "no dead letter with id " + id);
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
            SecurityContext caller) {
        return matching(
                "replay",
                "replayed",
                admin::replay,
                new DeadLetterCriteria(queue, kind, endpoint, error, deadFrom, deadTo),
                all,
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
            SecurityContext caller) {
        return matching(
                "purge",
                "purged",
                admin::purge,
                new DeadLetterCriteria(queue, kind, endpoint, error, deadFrom, deadTo),
                all,
                caller);
    }

    /** One bulk write on the dead letters the criteria match: audited, logged, counted under {@code done}. */
    private WebEndpointResponse<Map<String, Object>> matching(
            String action,
            String done,
            ToIntFunction<DeadLetterFilter> write,
            DeadLetterCriteria criteria,
            @Nullable Boolean all,
            SecurityContext caller) {
        return writes.run(caller, action, criteria.auditParameters(all), result -> {
            DeadLetterFilter filter = criteria.filterOfBulkWrite(all);
            int count = write.applyAsInt(filter);
            log.info("Postbox admin: {} {} dead letters ({})", done, count, DeadLetterCriteria.describe(filter));
            result.put(done, count);
            return AdminWrites.ok(result);
        });
    }
}
