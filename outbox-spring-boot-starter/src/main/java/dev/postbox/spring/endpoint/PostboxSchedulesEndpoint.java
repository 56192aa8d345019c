package dev.postbox.spring.endpoint;

import dev.postbox.spring.schedule.PostboxScheduleAdmin;
import dev.postbox.spring.schedule.PostboxScheduleAdmin.ScheduleView;
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
 * The {@code postboxschedules} actuator endpoint: {@code GET /actuator/postboxschedules?limit=} lists
 * every stored cron schedule (cron, zone, kind, queue, paused, next fire, last fire) with its latest
 * {@code limit} fires (default {@value #DEFAULT_SCHEDULE_HISTORY}) and their jobs' outcomes; {@code
 * POST /actuator/postboxschedules/{schedule}} with {@code {"paused": true}} or {@code false} pauses or
 * resumes a schedule cluster-wide (a write operation; see {@link PostboxEndpoint} for access and
 * audit). Without schedules configured every operation answers 400 saying so. Both take {@code
 * tenant} (an id, or {@value PostboxTenantsEndpoint#DEFAULT_TENANT}): they then see and change only
 * that tenant's schedules, and another tenant's schedule is not found (docs/tenants.md).
 */
@Endpoint(id = "postboxschedules", defaultAccess = Access.READ_ONLY)
public class PostboxSchedulesEndpoint {

    /** Fires per schedule that the list shows when no limit is given. */
    public static final int DEFAULT_SCHEDULE_HISTORY = 10;

    /** The most fires per schedule that one schedule list shows. */
    public static final int MAX_SCHEDULE_HISTORY = 100;

    private static final Logger log = LoggerFactory.getLogger(PostboxSchedulesEndpoint.class);

    private final @Nullable PostboxScheduleAdmin schedules;
    private final AdminWrites writes;

    public PostboxSchedulesEndpoint(@Nullable PostboxScheduleAdmin schedules, PostboxAdminProperties properties) {
        this.schedules = schedules;
        this.writes = new AdminWrites(properties);
    }

    /** Every schedule with its latest {@code limit} fires (0 to {@value #MAX_SCHEDULE_HISTORY}). */
    @ReadOperation
    public List<ScheduleView> schedules(@Nullable Integer limit, @Nullable String tenant) {
        int history = RequestChecks.limit(
                "limit (fires per schedule)", limit, DEFAULT_SCHEDULE_HISTORY, 0, MAX_SCHEDULE_HISTORY);
        return admin(tenant).schedules(history);
    }

    /** Pauses ({@code paused: true}) or resumes the schedule; 404 when no schedule has the name. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> paused(
            @Selector String schedule, boolean paused, @Nullable String tenant, SecurityContext caller) {
        Map<String, @Nullable Object> parameters = new LinkedHashMap<>();
        parameters.put("schedule", schedule);
        parameters.put("tenant", tenant);
        return writes.run(caller, paused ? "pause" : "resume", parameters, result -> {
            String name = RequestChecks.requiredName("schedule", schedule);
            PostboxScheduleAdmin admin = admin(tenant);
            result.put("schedule", name);
            return AdminWrites.notFoundWhenUnknown(result, () -> {
                boolean changed = paused ? admin.pause(name) : admin.resume(name);
                log.info(
                        "Postbox admin: schedule '{}' {}",
                        name,
                        changed ? (paused ? "paused" : "resumed") : (paused ? "was paused" : "was not paused"));
                result.put("paused", paused);
                result.put("changed", changed);
                return AdminWrites.ok(result);
            });
        });
    }

    /**
     * The schedule admin, limited to the tenant a request names (the core's registry then puts the
     * tenant in every statement), or over every tenant when it names none.
     */
    private PostboxScheduleAdmin admin(@Nullable String tenant) {
        PostboxScheduleAdmin all = RequestChecks.configured(
                schedules, "Postbox schedules are not configured in this application", "schedules not configured");
        String key = PostboxTenantsEndpoint.key(tenant);
        if (key == null) {
            return all;
        }
        return all.forTenant(key.isEmpty() ? null : key);
    }
}
