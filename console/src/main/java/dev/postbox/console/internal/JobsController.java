package dev.postbox.console.internal;

import dev.postbox.PostboxAdmin;
import dev.postbox.TaggedJob;
import dev.postbox.console.PostboxConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/** Job search and the job page with its attempt timeline; cancel a waiting job, replay a dead one. */
@Controller
public final class JobsController {

    /** The time windows the search offers, by the value of its {@code window} field. */
    static final Map<String, Duration> WINDOWS = Map.of(
            "15m", Duration.ofMinutes(15),
            "1h", Duration.ofHours(1),
            "6h", Duration.ofHours(6),
            "24h", Duration.ofHours(24),
            "7d", Duration.ofDays(7));

    static final String DEFAULT_WINDOW = "1h";

    /**
     * The longest time window a search reads (the largest the form offers). A search outside an id or
     * key reads its whole window of the archive (a BRIN range): any reader could otherwise start a
     * scan of the full archive.
     */
    static final Duration MAX_WINDOW = Duration.ofDays(7);

    private final JobSearchStore jobSearch;
    private final JobDetailStore jobDetails;
    private final ConsoleDatabase database;
    private final PostboxAdmin admin;
    private final TagSearch tagSearch;
    private final ConsoleViews views;
    private final ConsoleActions actions;
    private final PostboxConsoleProperties properties;

    public JobsController(
            JobSearchStore jobSearch,
            JobDetailStore jobDetails,
            ConsoleDatabase database,
            PostboxAdmin admin,
            ConsoleViews views,
            ConsoleActions actions,
            PostboxConsoleProperties properties) {
        this.jobSearch = jobSearch;
        this.jobDetails = jobDetails;
        this.database = database;
        this.admin = admin;
        this.tagSearch = new TagSearch(admin);
        this.views = views;
        this.actions = actions;
        this.properties = properties;
    }

    @GetMapping("/jobs")
    public View search(
            @RequestParam(required = false) @Nullable String id,
            @RequestParam(required = false) @Nullable String key,
            @RequestParam(required = false) @Nullable String orderingKey,
            @RequestParam(required = false) @Nullable String kind,
            @RequestParam(required = false) @Nullable String queue,
            @RequestParam(required = false) @Nullable String state,
            @RequestParam(required = false) @Nullable String tenant,
            @RequestParam(required = false) @Nullable String window,
            @RequestParam(required = false) @Nullable String from,
            @RequestParam(required = false) @Nullable String to,
            HttpServletRequest request,
            Model model) {
        // Each "tag" parameter as sent: a List<String> parameter would split a lone value at its commas.
        Map<String, String> tags = TagSearch.parse(request.getParameterValues("tag"));
        if (!tags.isEmpty()) {
            TagSearch.onlyWithTenant(id, key, orderingKey, kind, queue, state, from, to);
        }
        Instant now = database.databaseNow();
        String givenWindow = blank(window);
        String w = givenWindow == null ? DEFAULT_WINDOW : givenWindow;
        Instant end = parseTime("to", to, now.plusSeconds(1));
        Instant start = parseTime("from", from, end.minus(WINDOWS.getOrDefault(w, WINDOWS.get(DEFAULT_WINDOW))));
        JobSearch q = new JobSearch(
                parseId(id),
                blank(key),
                blank(orderingKey),
                blank(kind),
                blank(queue),
                blank(state),
                blank(tenant),
                start,
                end);
        if (q.id() == null
                && q.idempotencyKey() == null
                && Duration.between(start, end).compareTo(MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("A job search reads at most " + MAX_WINDOW.toDays() + " days (from "
                    + start + " to " + end + " is "
                    + Duration.between(start, end).toDays() + " days): narrow 'from'"
                    + " and 'to', or search by id or idempotency key, which need no window.");
        }
        model.addAttribute("q", q);
        model.addAttribute(
                "form",
                new SearchForm(
                        id == null ? "" : id.trim(),
                        nz(key),
                        nz(orderingKey),
                        nz(kind),
                        nz(queue),
                        nz(state),
                        nz(tenant),
                        w,
                        nz(from),
                        nz(to),
                        TagSearch.shown(tags)));
        model.addAttribute("states", JobSearch.STATES);
        model.addAttribute("windows", List.of("15m", "1h", "6h", "24h", "7d"));
        if (!tags.isEmpty()) {
            // Through the core's read API: the tag indexes, the tenant scope and the tag rules are its own.
            int limit = Math.min(properties.getPageSize(), TagSearch.MAX_ROWS);
            List<TaggedJob> tagged = tagSearch.jobs(q.tenant(), tags, limit);
            model.addAttribute("tagged", tagged);
            model.addAttribute("rows", List.of());
            model.addAttribute("limited", tagged.size() >= limit);
        } else {
            List<JobSearchStore.JobRow> rows = jobSearch.search(q, properties.getPageSize());
            model.addAttribute("rows", rows);
            model.addAttribute("limited", rows.size() >= properties.getPageSize());
        }
        model.addAttribute("section", "jobs");
        return views.page("jobs");
    }

    /** The search form as typed, to show it again; {@code tags} each {@code key=value}. */
    public record SearchForm(
            String id,
            String key,
            String orderingKey,
            String kind,
            String queue,
            String state,
            String tenant,
            String window,
            String from,
            String to,
            List<String> tags) {}

    @GetMapping("/jobs/{id}")
    public View job(@PathVariable long id, Model model) {
        JobDetailStore.Job job = jobDetails
                .job(id, properties.isShowPayloads())
                .orElseThrow(() -> new ConsoleNotFoundException("No job " + id + " (live, archived or dead)."
                        + " Archived jobs are kept for postbox.archive.retention."));
        model.addAttribute("job", job);
        model.addAttribute("section", "jobs");
        return views.page("job");
    }

    @PostMapping("/jobs/{id}/cancel")
    public View cancel(@PathVariable long id, HttpServletRequest request, RedirectAttributes flash) {
        if (!admin.cancel(id)) {
            throw new IllegalArgumentException("Job " + id + " was not cancelled: only a waiting job (pending,"
                    + " scheduled or retrying) can be; a running one finishes its attempt first.");
        }
        return actions.done(request, flash, "cancel job", String.valueOf(id), "archived as cancelled", "/jobs/" + id);
    }

    @PostMapping("/jobs/{id}/replay")
    public View replay(@PathVariable long id, HttpServletRequest request, RedirectAttributes flash) {
        if (!admin.replay(id)) {
            throw new IllegalArgumentException("Job " + id + " is not a dead letter (any more): nothing to replay.");
        }
        return actions.done(
                request,
                flash,
                "replay job",
                String.valueOf(id),
                "back in its queue with a fresh budget",
                "/jobs/" + id);
    }

    static @Nullable Long parseId(@Nullable String id) {
        String v = blank(id);
        if (v == null) {
            return null;
        }
        try {
            return Long.valueOf(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "A job id is a whole number, was '" + v + "'. Search by idempotency key in the key field.");
        }
    }

    /** A datetime-local value (UTC) or an ISO instant; {@code otherwise} when blank. */
    static Instant parseTime(String field, @Nullable String value, Instant otherwise) {
        String v = blank(value);
        if (v == null) {
            return otherwise;
        }
        try {
            return v.endsWith("Z") ? Instant.parse(v) : LocalDateTime.parse(v).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "'" + field + "' must be a UTC time such as 2025-03-01T14:00, was '" + v + "'");
        }
    }

    static @Nullable String blank(@Nullable String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static String nz(@Nullable String s) {
        return s == null ? "" : s.trim();
    }
}
