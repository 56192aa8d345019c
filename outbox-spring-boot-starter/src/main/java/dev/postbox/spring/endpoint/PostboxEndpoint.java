package dev.postbox.spring.endpoint;

import dev.postbox.DeadLetterFilter;
import dev.postbox.JobDetails;
import dev.postbox.PostboxAdmin;
import dev.postbox.QueueStats;
import dev.postbox.TenantAdmin;
import dev.postbox.spring.schedule.PostboxScheduleAdmin;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postbox} actuator endpoint, on {@link PostboxAdmin}.
 *
 * <ul>
 *   <li>{@code GET /actuator/postbox}: summary per queue (depth by state, oldest age, dead letters,
 *       paused) and totals.
 *   <li>{@code GET /actuator/postbox/queues}: the per-queue part of the summary.
 *   <li>{@code GET /actuator/postbox/tenants?limit=} the worst tenants (oldest due job first),
 *       {@code ?tenant=acme} one tenant; {@code tenant=acme} on {@code dlq} lists that tenant's dead
 *       letters only, and on a write action ({@code replay, purge, cancel, pause, resume}) limits it
 *       to that tenant's rows ({@code pause}/{@code resume} with a tenant and no queue pause the
 *       tenant in every queue). {@value #DEFAULT_TENANT} names the default tenant.
 *   <li>{@code GET /actuator/postbox/dlq?queue=&kind=&endpoint=&error=&deadFrom=&deadTo=&limit=}:
 *       dead letters, newest first ({@code error} matches the last error case-insensitively, the
 *       times are ISO-8601 instants, {@code [deadFrom, deadTo)}).
 *   <li>{@code GET /actuator/postbox/jobs/{id}}: one job with its attempt history, wherever it is
 *       (live, archive, dead); 404 when unknown.
 *   <li>{@code POST /actuator/postbox/{action}} with a JSON body, only when {@code
 *       postbox.admin.write-enabled=true} (else 403): {@code replay} ({@code {"id": 42}} or a filter
 *       {@code queue, kind, endpoint, error, deadFrom, deadTo}), {@code purge} (a filter), {@code
 *       cancel} ({@code id} of a waiting job), {@code pause} and {@code resume} ({@code queue}).
 *       Replay and purge by filter need at least one criterion, or {@code "all": true}.
 *   <li>With webhook delivery ({@code postbox-delivery-http}): {@code GET
 *       /actuator/postbox/endpoints} lists the webhook endpoints and their state ({@code
 *       ?endpoint=name} for one; never secrets or header values); {@code POST
 *       /actuator/postbox/enable-endpoint} ({@code {"endpoint": "billing"}}) enables an endpoint and
 *       replays what waited, {@code POST /actuator/postbox/disable-endpoint} ({@code endpoint}, optional
 *       {@code reason}) disables one; {@code POST /actuator/postbox/reencrypt-secrets} rewrites every
 *       stored signing secret and header value with the active encryption key (answering {@code
 *       endpoints}, how many were rewritten; 409 naming the key when it cannot). All are write
 *       operations.
 *   <li>Cron schedules: {@code GET /actuator/postbox/schedules?limit=} lists every stored schedule
 *       (cron, zone, kind, queue, paused, next fire, last fire) with its latest {@code limit} fires
 *       (default {@value #DEFAULT_SCHEDULE_HISTORY}) and their jobs' outcomes; {@code POST
 *       /actuator/postbox/pause} and {@code resume} with {@code {"schedule": "nightly-report"}}
 *       pause or resume a schedule cluster-wide (write operations).
 * </ul>
 *
 * <p><b>Access.</b> The endpoint is read-only by default ({@link Access#READ_ONLY}): the write
 * operation is not even mapped until the operator sets {@code
 * management.endpoint.postbox.access=unrestricted}, and then still answers 403 unless {@code
 * postbox.admin.write-enabled=true}. Every call of the write operation (allowed, refused or failed)
 * writes one audit line to the logger {@value #AUDIT_LOGGER}: the principal ({@code (anonymous)}
 * without one), the action, its parameters and the HTTP status. Route that logger to your audit
 * trail; no parameter of this endpoint carries a secret.
 */
@Endpoint(id = "postbox", defaultAccess = Access.READ_ONLY)
public class PostboxEndpoint {

    /** The logger that receives one line per write operation, with the principal. */
    public static final String AUDIT_LOGGER = "dev.postbox.audit";

    /** How requests name the default tenant (parentheses: no tenant id can be this). */
    public static final String DEFAULT_TENANT = "(default)";

    /** The most dead letters one list returns. */
    public static final int MAX_DEAD_LETTER_LIMIT = 1000;

    static final String WRITE_PROPERTY = "postbox.admin.write-enabled";

    /** Fires per schedule that {@code GET /actuator/postbox/schedules} shows when no limit is given. */
    public static final int DEFAULT_SCHEDULE_HISTORY = 10;

    /** The most fires per schedule that one schedule list shows. */
    public static final int MAX_SCHEDULE_HISTORY = 100;

    /** HTTP 403, returned by write operations while they are disabled. */
    public static final int STATUS_FORBIDDEN = 403;

    /** HTTP 409, returned when re-encryption cannot run with the configured keys. */
    public static final int STATUS_CONFLICT = 409;

    private static final Logger log = LoggerFactory.getLogger(PostboxEndpoint.class);
    private static final Logger audit = LoggerFactory.getLogger(AUDIT_LOGGER);

    private final PostboxAdmin admin;
    private final PostboxAdminProperties properties;
    private final @Nullable WebhookEndpointAdmin webhookEndpoints;
    private final @Nullable PostboxScheduleAdmin schedules;

    public PostboxEndpoint(PostboxAdmin admin, PostboxAdminProperties properties) {
        this(admin, properties, null);
    }

    /** With webhook endpoint administration (when {@code postbox-delivery-http} is configured). */
    public PostboxEndpoint(
            PostboxAdmin admin, PostboxAdminProperties properties, @Nullable WebhookEndpointAdmin webhookEndpoints) {
        this(admin, properties, webhookEndpoints, null);
    }

    /** With webhook endpoint and schedule administration, each when configured. */
    public PostboxEndpoint(
            PostboxAdmin admin,
            PostboxAdminProperties properties,
            @Nullable WebhookEndpointAdmin webhookEndpoints,
            @Nullable PostboxScheduleAdmin schedules) {
        this.admin = admin;
        this.properties = properties;
        this.webhookEndpoints = webhookEndpoints;
        this.schedules = schedules;
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

    /** {@link #resource} of every tenant (for callers in code). */
    public Object resource(
            String resource,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Integer limit) {
        return resource(resource, queue, kind, endpoint, error, deadFrom, deadTo, limit, null);
    }

    /**
     * {@code queues}: the per-queue summary; {@code dlq}: dead letters matching the parameters (of
     * one tenant when {@code tenant} is given: an id, or {@value #DEFAULT_TENANT} for the default
     * tenant); {@code tenants}: the worst {@code limit} tenants (oldest due job first).
     */
    @ReadOperation
    public Object resource(
            @Selector String resource,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Integer limit,
            @Nullable String tenant) {
        return switch (resource) {
            case "queues" -> summary().queues();
            case "tenants" -> {
                int max = limit != null ? limit : properties.getDeadLetterLimit();
                if (max < 1 || max > MAX_DEAD_LETTER_LIMIT) {
                    throw new InvalidEndpointRequestException(
                            "limit must be between 1 and " + MAX_DEAD_LETTER_LIMIT + ", was " + max,
                            "limit out of range");
                }
                yield blankToNull(tenant) == null
                        ? admin.tenants(max)
                        : List.of(tenantAdmin(tenant).stats());
            }
            case "schedules" -> {
                int history = limit != null ? limit : DEFAULT_SCHEDULE_HISTORY;
                if (history < 0 || history > MAX_SCHEDULE_HISTORY) {
                    throw new InvalidEndpointRequestException(
                            "limit (fires per schedule) must be between 0 and " + MAX_SCHEDULE_HISTORY + ", was "
                                    + history,
                            "limit out of range");
                }
                yield schedules().schedules(history);
            }
            case "endpoints" -> {
                String name = blankToNull(endpoint);
                yield name == null
                        ? webhookEndpoints().list()
                        : webhookEndpoints().get(name).orElse(null);
            }
            case "dlq" -> {
                int max = limit != null ? limit : properties.getDeadLetterLimit();
                if (max < 1 || max > MAX_DEAD_LETTER_LIMIT) {
                    throw new InvalidEndpointRequestException(
                            "limit must be between 1 and " + MAX_DEAD_LETTER_LIMIT + ", was " + max,
                            "limit out of range");
                }
                DeadLetterFilter filter = filter(queue, kind, endpoint, error, deadFrom, deadTo);
                yield blankToNull(tenant) == null
                        ? admin.deadLetters(filter, max)
                        : tenantAdmin(tenant).deadLetters(filter, max);
            }
            default ->
                throw new InvalidEndpointRequestException(
                        "Unknown resource '" + resource
                                + "': use queues, tenants, dlq, endpoints, schedules or jobs/{id}",
                        "unknown resource");
        };
    }

    /** {@code jobs/{id}}: the job with its attempt history; {@code null} (404) when there is none. */
    @ReadOperation
    public @Nullable JobView job(@Selector String resource, @Selector long id) {
        if (!resource.equals("jobs")) {
            throw new InvalidEndpointRequestException(
                    "Unknown resource '" + resource + "': use jobs/{id}", "unknown resource");
        }
        return admin.job(id)
                .map(job -> JobView.of(job, properties.isShowPayloads()))
                .orElse(null);
    }

    /** {@link #action} without a reason (for callers in code). */
    public WebEndpointResponse<Map<String, Object>> action(
            String action,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all) {
        return action(action, id, queue, kind, endpoint, error, deadFrom, deadTo, all, null, null);
    }

    /** {@link #action} without a schedule (for callers in code). */
    public WebEndpointResponse<Map<String, Object>> action(
            String action,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all,
            @Nullable String reason) {
        return action(action, id, queue, kind, endpoint, error, deadFrom, deadTo, all, reason, null);
    }

    /** {@link #action} by a caller in code (audited without a principal). */
    public WebEndpointResponse<Map<String, Object>> action(
            String action,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all,
            @Nullable String reason,
            @Nullable String schedule) {
        return action(
                action,
                id,
                queue,
                kind,
                endpoint,
                error,
                deadFrom,
                deadTo,
                all,
                reason,
                schedule,
                null,
                SecurityContext.NONE);
    }

    /** {@link #action} of one tenant by a caller in code (audited without a principal). */
    public WebEndpointResponse<Map<String, Object>> tenantAction(
            String action,
            String tenant,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all) {
        return action(
                action,
                id,
                queue,
                kind,
                endpoint,
                error,
                deadFrom,
                deadTo,
                all,
                null,
                null,
                tenant,
                SecurityContext.NONE);
    }

    /**
     * Runs a write action; refused (403) unless {@value #WRITE_PROPERTY} is true. Each call is
     * audited on {@value #AUDIT_LOGGER} with the caller's principal, whatever its outcome.
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> action(
            @Selector String action,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all,
            @Nullable String reason,
            @Nullable String schedule,
            @Nullable String tenant,
            SecurityContext caller) {
        String request =
                AdminAudit.describe(action, id, queue, kind, endpoint, error, deadFrom, deadTo, all, reason, schedule)
                        + (blankToNull(tenant) == null ? "" : " tenant=" + AdminAudit.clean(tenant));
        String principal = AdminAudit.principal(caller);
        WebEndpointResponse<Map<String, Object>> response;
        try {
            response = blankToNull(tenant) == null || !properties.isWriteEnabled()
                    ? perform(action, id, queue, kind, endpoint, error, deadFrom, deadTo, all, reason, schedule)
                    : performForTenant(
                            action,
                            tenantAdmin(tenant),
                            id,
                            queue,
                            kind,
                            endpoint,
                            error,
                            deadFrom,
                            deadTo,
                            all,
                            schedule);
        } catch (InvalidEndpointRequestException e) {
            audit.info(
                    "postbox admin write: principal={} {} status={} ({})",
                    principal,
                    request,
                    WebEndpointResponse.STATUS_BAD_REQUEST,
                    e.getReason());
            throw e;
        } catch (RuntimeException e) {
            audit.warn(
                    "postbox admin write: principal={} {} status={} ({})",
                    principal,
                    request,
                    WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR,
                    e.getClass().getSimpleName());
            throw e;
        }
        audit.info("postbox admin write: principal={} {} status={}", principal, request, response.getStatus());
        return response;
    }

    private WebEndpointResponse<Map<String, Object>> perform(
            String action,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all,
            @Nullable String reason,
            @Nullable String schedule) {
        if (!properties.isWriteEnabled()) {
            return response(
                    STATUS_FORBIDDEN,
                    Map.of(
                            "action",
                            action,
                            "error",
                            "Postbox write operations are disabled: set " + WRITE_PROPERTY
                                    + "=true to allow replay, purge, cancel, pause and resume"));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("action", action);
        switch (action.toLowerCase(Locale.ROOT)) {
            case "replay" -> {
                if (id != null) {
                    if (hasFilter(queue, kind, endpoint, error, deadFrom, deadTo)) {
                        return badRequest(action, "give either id or filter criteria, not both");
                    }
                    boolean replayed = admin.replay(id);
                    log.info("Postbox admin: replay of dead letter {} {}", id, replayed ? "done" : "found nothing");
                    if (!replayed) {
                        result.put("error", "no dead letter with id " + id);
                        return response(WebEndpointResponse.STATUS_NOT_FOUND, result);
                    }
                    result.put("id", id);
                    result.put("replayed", 1);
                } else {
                    DeadLetterFilter filter = guardedFilter(queue, kind, endpoint, error, deadFrom, deadTo, all);
                    int replayed = admin.replay(filter);
                    log.info("Postbox admin: replayed {} dead letters ({})", replayed, describe(filter));
                    result.put("replayed", replayed);
                }
            }
            case "purge" -> {
                if (id != null) {
                    return badRequest(action, "purge takes filter criteria, not an id");
                }
                DeadLetterFilter filter = guardedFilter(queue, kind, endpoint, error, deadFrom, deadTo, all);
                int purged = admin.purge(filter);
                log.info("Postbox admin: purged {} dead letters ({})", purged, describe(filter));
                result.put("purged", purged);
            }
            case "cancel" -> {
                if (id == null) {
                    return badRequest(action, "cancel needs the id of a waiting job");
                }
                boolean cancelled = admin.cancel(id);
                log.info("Postbox admin: cancel of job {} {}", id, cancelled ? "done" : "found no waiting job");
                if (!cancelled) {
                    result.put("error", "no waiting (pending or retry) job with id " + id);
                    return response(WebEndpointResponse.STATUS_NOT_FOUND, result);
                }
                result.put("id", id);
                result.put("cancelled", true);
            }
            case "pause", "resume" -> {
                String name = blankToNull(queue);
                String scheduleName = blankToNull(schedule);
                if (scheduleName != null) {
                    if (name != null) {
                        return badRequest(action, "give either a queue or a schedule, not both");
                    }
                    return scheduleAction(action, scheduleName, result);
                }
                if (name == null) {
                    return badRequest(action, action + " needs a queue or a schedule");
                }
                boolean pause = action.equalsIgnoreCase("pause");
                if (pause) {
                    admin.pause(name);
                } else {
                    admin.resume(name);
                }
                log.info("Postbox admin: queue '{}' {}", name, pause ? "paused" : "resumed");
                result.put("queue", name);
                result.put("paused", pause);
            }
            case "enable-endpoint", "disable-endpoint" -> {
                String name = blankToNull(endpoint);
                if (name == null) {
                    return badRequest(action, action + " needs an endpoint");
                }
                result.put("endpoint", name);
                try {
                    if (action.equalsIgnoreCase("enable-endpoint")) {
                        WebhookEndpointAdmin.EnableView enabled =
                                webhookEndpoints().enable(name);
                        log.info(
                                "Postbox admin: webhook endpoint '{}' enabled ({} waiting deliveries resumed, {} dead"
                                        + " letters replayed)",
                                name,
                                enabled.resumed(),
                                enabled.replayed());
                        result.put("changed", enabled.changed());
                        result.put("resumed", enabled.resumed());
                        result.put("replayed", enabled.replayed());
                    } else {
                        String why = blankToNull(reason);
                        boolean changed = webhookEndpoints()
                                .disable(name, why != null ? why : "disabled through the postbox actuator endpoint");
                        log.info(
                                "Postbox admin: webhook endpoint '{}' {}", name, changed ? "disabled" : "was disabled");
                        result.put("changed", changed);
                    }
                } catch (IllegalArgumentException e) {
                    result.put("error", e.getMessage());
                    return response(WebEndpointResponse.STATUS_NOT_FOUND, result);
                }
            }
            case "reencrypt-secrets" -> {
                try {
                    int rewritten = webhookEndpoints().reencryptSecrets();
                    log.info("Postbox admin: re-encrypted the secrets of {} webhook endpoints", rewritten);
                    result.put("endpoints", rewritten);
                } catch (IllegalStateException e) {
                    // Names the key id or the configuration to add, never a secret.
                    result.put("error", e.getMessage());
                    return response(STATUS_CONFLICT, result);
                }
            }
            default -> {
                return badRequest(
                        action,
                        "unknown action: use replay, purge, cancel, pause, resume, enable-endpoint, disable-endpoint"
                                + " or reencrypt-secrets");
            }
        }
        return response(WebEndpointResponse.STATUS_OK, result);
    }

    /** The tenant named by a request: an id, or {@value #DEFAULT_TENANT} for the default tenant. */
    private TenantAdmin tenantAdmin(String tenant) {
        String name = tenant.trim();
        if (name.equals(DEFAULT_TENANT)) {
            return admin.forDefaultTenant();
        }
        try {
            return admin.forTenant(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), "bad tenant");
        }
    }

    /**
     * The write actions of one tenant: replay, purge, cancel, pause and resume, each limited to the
     * tenant's rows by {@link TenantAdmin}.
     */
    private WebEndpointResponse<Map<String, Object>> performForTenant(
            String action,
            TenantAdmin tenant,
            @Nullable Long id,
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all,
            @Nullable String schedule) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("action", action);
        String name = tenant.tenant().orElse(DEFAULT_TENANT);
        result.put("tenant", name);
        switch (action.toLowerCase(Locale.ROOT)) {
            case "replay" -> {
                if (id != null) {
                    if (hasFilter(queue, kind, endpoint, error, deadFrom, deadTo)) {
                        return badRequest(action, "give either id or filter criteria, not both");
                    }
                    if (!tenant.replay(id)) {
                        result.put("error", "tenant " + name + " has no dead letter with id " + id);
                        return response(WebEndpointResponse.STATUS_NOT_FOUND, result);
                    }
                    result.put("id", id);
                    result.put("replayed", 1);
                } else {
                    DeadLetterFilter filter = guardedFilter(queue, kind, endpoint, error, deadFrom, deadTo, all);
                    result.put("replayed", tenant.replay(filter));
                }
            }
            case "purge" -> {
                if (id != null) {
                    return badRequest(action, "purge takes filter criteria, not an id");
                }
                result.put("purged", tenant.purge(guardedFilter(queue, kind, endpoint, error, deadFrom, deadTo, all)));
            }
            case "cancel" -> {
                if (id == null) {
                    return badRequest(action, "cancel needs the id of a waiting job");
                }
                if (!tenant.cancel(id)) {
                    result.put("error", "tenant " + name + " has no waiting (pending or retry) job with id " + id);
                    return response(WebEndpointResponse.STATUS_NOT_FOUND, result);
                }
                result.put("id", id);
                result.put("cancelled", true);
            }
            case "pause", "resume" -> {
                if (blankToNull(queue) != null || blankToNull(schedule) != null) {
                    return badRequest(
                            action,
                            "a tenant is paused in every queue: give the tenant alone, without queue or schedule");
                }
                boolean pause = action.equalsIgnoreCase("pause");
                if (pause) {
                    tenant.pause();
                } else {
                    tenant.resume();
                }
                result.put("paused", pause);
            }
            default -> {
                return badRequest(action, "with a tenant, use replay, purge, cancel, pause or resume");
            }
        }
        log.info("Postbox admin: {} for tenant {}: {}", action, name, result);
        return response(WebEndpointResponse.STATUS_OK, result);
    }

    private WebEndpointResponse<Map<String, Object>> scheduleAction(
            String action, String name, Map<String, Object> result) {
        boolean pause = action.equalsIgnoreCase("pause");
        result.put("schedule", name);
        try {
            boolean changed = pause ? schedules().pause(name) : schedules().resume(name);
            log.info(
                    "Postbox admin: schedule '{}' {}",
                    name,
                    changed ? (pause ? "paused" : "resumed") : (pause ? "was paused" : "was not paused"));
            result.put("paused", pause);
            result.put("changed", changed);
            return response(WebEndpointResponse.STATUS_OK, result);
        } catch (IllegalArgumentException e) {
            result.put("error", e.getMessage());
            return response(WebEndpointResponse.STATUS_NOT_FOUND, result);
        }
    }

    private PostboxScheduleAdmin schedules() {
        if (schedules == null) {
            throw new InvalidEndpointRequestException(
                    "Postbox schedules are not configured in this application", "schedules not configured");
        }
        return schedules;
    }

    private WebhookEndpointAdmin webhookEndpoints() {
        if (webhookEndpoints == null) {
            throw new InvalidEndpointRequestException(
                    "Webhook delivery is not configured: add postbox-delivery-http to the application",
                    "webhook delivery not configured");
        }
        return webhookEndpoints;
    }

    private static WebEndpointResponse<Map<String, Object>> badRequest(String action, String message) {
        return response(WebEndpointResponse.STATUS_BAD_REQUEST, Map.of("action", action, "error", message));
    }

    private static WebEndpointResponse<Map<String, Object>> response(int status, Map<String, Object> body) {
        return new WebEndpointResponse<>(body, status);
    }

    private static DeadLetterFilter guardedFilter(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo,
            @Nullable Boolean all) {
        boolean any = hasFilter(queue, kind, endpoint, error, deadFrom, deadTo);
        if (!any && !Boolean.TRUE.equals(all)) {
            throw new InvalidEndpointRequestException(
                    "Give at least one of queue, kind, endpoint, error, deadFrom, deadTo, or \"all\": true"
                            + " to select every dead letter",
                    "no filter");
        }
        return filter(queue, kind, endpoint, error, deadFrom, deadTo);
    }

    private static boolean hasFilter(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo) {
        for (String s : new @Nullable String[] {queue, kind, endpoint, error, deadFrom, deadTo}) {
            if (blankToNull(s) != null) {
                return true;
            }
        }
        return false;
    }

    private static DeadLetterFilter filter(
            @Nullable String queue,
            @Nullable String kind,
            @Nullable String endpoint,
            @Nullable String error,
            @Nullable String deadFrom,
            @Nullable String deadTo) {
        return DeadLetterFilter.all()
                .queue(blankToNull(queue))
                .kind(blankToNull(kind))
                .endpoint(blankToNull(endpoint))
                .errorContains(blankToNull(error))
                .deadBetween(instant("deadFrom", deadFrom), instant("deadTo", deadTo));
    }

    private static @Nullable Instant instant(String name, @Nullable String text) {
        String value = blankToNull(text);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidEndpointRequestException(
                    name + " must be an ISO-8601 instant such as 2026-01-31T12:00:00Z, was '" + value + "'",
                    "bad " + name);
        }
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static String describe(DeadLetterFilter f) {
        StringBuilder b = new StringBuilder();
        f.queue().ifPresent(v -> b.append("queue=").append(v).append(' '));
        f.kind().ifPresent(v -> b.append("kind=").append(v).append(' '));
        f.endpoint().ifPresent(v -> b.append("endpoint=").append(v).append(' '));
        f.errorContains().ifPresent(v -> b.append("error~").append(v).append(' '));
        f.deadFrom().ifPresent(v -> b.append("deadFrom=").append(v).append(' '));
        f.deadTo().ifPresent(v -> b.append("deadTo=").append(v).append(' '));
        return b.isEmpty() ? "all" : b.toString().trim();
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
            List<JobDetails.Attempt> history) {

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
                    j.history());
        }
    }
}
