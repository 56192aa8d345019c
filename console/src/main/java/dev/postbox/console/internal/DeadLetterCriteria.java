package dev.postbox.console.internal;

import dev.postbox.DeadLetterFilter;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Which dead letters a dead-letter page or action means, as its form fields say: a selection of
 * ids, one group (kind, error fingerprint, endpoint and HTTP status), or a filter (queue, kind, error text, time window).
 * {@code until} pins an action to the dead letters that existed when its confirmation was shown, so
 * the action touches what was counted and never one that died afterwards. {@code tenant} limits all of
 * it to one tenant's dead letters (through {@link dev.postbox.TenantAdmin}).
 */
public record DeadLetterCriteria(
        @Nullable String queue,
        @Nullable String kind,
        @Nullable String error,
        @Nullable String fingerprint,
        @Nullable String endpoint,
        @Nullable Integer status,
        @Nullable Instant from,
        @Nullable Instant to,
        @Nullable List<Long> ids,
        @Nullable Instant until,
        @Nullable String tenant) {

    /** Reads the form fields; a malformed value is an IllegalArgumentException naming the field. */
    public static DeadLetterCriteria from(HttpServletRequest request) {
        List<Long> ids = null;
        String[] idValues = request.getParameterValues("id");
        if (idValues != null) {
            ids = new ArrayList<>();
            for (String v : idValues) {
                Long id = JobsController.parseId(v);
                if (id != null) {
                    ids.add(id);
                }
            }
        }
        if (ids == null && "selection".equals(request.getParameter("scope"))) {
            ids = List.of(); // "replay selected" with nothing ticked selects nothing, never everything
        }
        String untilValue = JobsController.blank(request.getParameter("until"));
        return new DeadLetterCriteria(
                JobsController.blank(request.getParameter("queue")),
                JobsController.blank(request.getParameter("kind")),
                JobsController.blank(request.getParameter("error")),
                request.getParameter("fingerprint"), // an empty fingerprint is a group too (no error text)
                JobsController.blank(request.getParameter("endpoint")),
                status(request),
                time(request, "from"),
                time(request, "to"),
                ids,
                untilValue == null ? null : JobsController.parseTime("until", untilValue, Instant.EPOCH),
                JobsController.blank(request.getParameter("tenant")));
    }

    private static @Nullable Integer status(HttpServletRequest request) {
        String v = JobsController.blank(request.getParameter("status"));
        if (v == null) {
            return null;
        }
        try {
            return Integer.valueOf(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'status' is an HTTP status such as 503, was '" + v + "'");
        }
    }

    private static @Nullable Instant time(HttpServletRequest request, String field) {
        String v = request.getParameter(field);
        return JobsController.blank(v) == null ? null : JobsController.parseTime(field, v, Instant.EPOCH);
    }

    public DeadLetterCriteria until(Instant instant) {
        return new DeadLetterCriteria(
                queue, kind, error, fingerprint, endpoint, status, from, to, ids, instant, tenant);
    }

    /** Whether this names particular dead letters (a selection) rather than a filter. */
    public boolean isSelection() {
        return ids != null;
    }

    /** The filter for PostboxAdmin. */
    public DeadLetterFilter filter() {
        Instant end = to;
        if (until != null && (end == null || until.isBefore(end))) {
            end = until;
        }
        return DeadLetterFilter.all()
                .queue(queue)
                .kind(kind)
                .errorContains(error)
                .errorFingerprint(fingerprint)
                .endpoint(endpoint)
                .errorStatus(status)
                .deadBetween(from, end)
                .ids(ids);
    }

    /** For the confirmation and the audit line: what is selected, without any payload. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (ids != null) {
            parts.add("ids "
                    + (ids.size() <= 20 ? ids.toString() : ids.subList(0, 20) + " and " + (ids.size() - 20) + " more"));
        }
        if (kind != null) {
            parts.add("kind " + kind);
        }
        if (fingerprint != null) {
            parts.add("error like \"" + fingerprint + "\"");
        }
        if (endpoint != null) {
            parts.add("endpoint " + endpoint);
        }
        if (status != null) {
            parts.add("HTTP " + status);
        }
        if (error != null) {
            parts.add("error containing \"" + error + "\"");
        }
        if (queue != null) {
            parts.add("queue " + queue);
        }
        if (tenant != null) {
            parts.add("tenant " + tenant);
        }
        if (from != null) {
            parts.add("dead since " + from);
        }
        if (to != null) {
            parts.add("dead before " + to);
        }
        if (until != null) {
            parts.add("as of " + until);
        }
        return parts.isEmpty() ? "all dead letters" : String.join(", ", parts);
    }

    /** The form fields that carry these criteria into the next form (hidden inputs). */
    public Map<String, List<String>> fields() {
        Map<String, List<String>> f = new TreeMap<>();
        put(f, "queue", queue);
        put(f, "kind", kind);
        put(f, "error", error);
        put(f, "fingerprint", fingerprint);
        put(f, "endpoint", endpoint);
        put(f, "status", status == null ? null : status.toString());
        put(f, "from", from == null ? null : from.toString());
        put(f, "to", to == null ? null : to.toString());
        put(f, "until", until == null ? null : until.toString());
        put(f, "tenant", tenant);
        if (ids != null) {
            f.put("scope", List.of("selection"));
            f.put("id", ids.stream().map(String::valueOf).toList());
        }
        return f;
    }

    private static void put(Map<String, List<String>> f, String name, @Nullable String value) {
        if (value != null) {
            f.put(name, List.of(value));
        }
    }
}
