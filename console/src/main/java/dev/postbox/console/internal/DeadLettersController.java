package dev.postbox.console.internal;

import dev.postbox.DeadLetter;
import dev.postbox.DeadLetterFilter;
import dev.postbox.PostboxAdmin;
import dev.postbox.TenantAdmin;
import dev.postbox.console.PostboxConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * Dead letters grouped by kind and error fingerprint, a filtered list, and replay or purge of a
 * selection, a group or a filter. Every replay and purge goes through a confirmation that shows how
 * many dead letters it will touch; the action itself needs the confirmation's fields.
 */
@Controller
public final class DeadLettersController {

    private static final int GROUPS = 100;

    private final DeadLetterGroupStore groups;
    private final ConsoleDatabase database;
    private final PostboxAdmin admin;
    private final ConsoleViews views;
    private final ConsoleActions actions;
    private final PostboxConsoleProperties properties;

    public DeadLettersController(
            DeadLetterGroupStore groups,
            ConsoleDatabase database,
            PostboxAdmin admin,
            ConsoleViews views,
            ConsoleActions actions,
            PostboxConsoleProperties properties) {
        this.groups = groups;
        this.database = database;
        this.admin = admin;
        this.views = views;
        this.actions = actions;
        this.properties = properties;
    }

    @GetMapping("/dead-letters")
    public View list(HttpServletRequest request, Model model) {
        DeadLetterCriteria c = DeadLetterCriteria.from(request);
        DeadLetterFilter filter = c.filter();
        model.addAttribute("criteria", c);
        model.addAttribute("groups", groups.deadLetterGroups(c.from(), c.to(), c.kind(), c.tenant(), GROUPS));
        model.addAttribute("letters", letters(c, filter, properties.getPageSize()));
        model.addAttribute("matching", count(c, filter));
        model.addAttribute("total", count(c, DeadLetterFilter.all()));
        model.addAttribute("section", "dead-letters");
        return views.page("dead-letters");
    }

    /** Shows what a replay or purge would touch and asks to confirm; changes nothing. */
    @PostMapping("/dead-letters/confirm")
    public View confirm(@RequestParam String action, HttpServletRequest request, Model model) {
        checkAction(action);
        DeadLetterCriteria c = DeadLetterCriteria.from(request);
        List<Long> selected = c.ids();
        if (selected != null && selected.isEmpty()) {
            throw new IllegalArgumentException("No dead letter is selected: tick the ones to " + action + " first.");
        }
        Instant now = database.databaseNow();
        DeadLetterCriteria pinned = c.until(now);
        model.addAttribute("action", action);
        model.addAttribute("criteria", pinned);
        model.addAttribute("count", count(pinned, pinned.filter()));
        model.addAttribute("sample", letters(pinned, pinned.filter(), 10));
        model.addAttribute("section", "dead-letters");
        return views.page("dead-letters-confirm");
    }

    @PostMapping("/dead-letters/{action}")
    public View act(
            @PathVariable String action,
            @RequestParam(name = "confirmed", required = false) @Nullable String confirmed,
            HttpServletRequest request,
            RedirectAttributes flash) {
        checkAction(action);
        DeadLetterCriteria c = DeadLetterCriteria.from(request);
        if (confirmed == null || c.until() == null) {
            throw new IllegalArgumentException("A " + action + " needs its confirmation: use the " + action
                    + " button, check the count it shows, then confirm.");
        }
        List<Long> selected = c.ids();
        if (selected != null && selected.isEmpty()) {
            throw new IllegalArgumentException("No dead letter is selected: nothing to " + action + ".");
        }
        int n;
        String tenant = c.tenant();
        if (tenant != null) {
            TenantAdmin scoped = scoped(tenant);
            n = "replay".equals(action) ? scoped.replay(c.filter()) : scoped.purge(c.filter());
        } else {
            n = "replay".equals(action) ? admin.replay(c.filter()) : admin.purge(c.filter());
        }
        String result = ("replay".equals(action) ? n + " replayed" : n + " purged") + " (confirmed " + confirmed + ")";
        return actions.done(request, flash, action + " dead letters", c.describe(), result, "/dead-letters");
    }

    /** The matching dead letters, of the chosen tenant only when the criteria name one. */
    private List<DeadLetter> letters(DeadLetterCriteria c, DeadLetterFilter filter, int limit) {
        String tenant = c.tenant();
        return tenant == null
                ? admin.deadLetters(filter, limit)
                : scoped(tenant).deadLetters(filter, limit);
    }

    private long count(DeadLetterCriteria c, DeadLetterFilter filter) {
        String tenant = c.tenant();
        return tenant == null ? admin.deadLetterCount(filter) : scoped(tenant).deadLetterCount(filter);
    }

    /** One tenant's admin: a tenant id, or "(default)" for the default tenant (as the actuator names it). */
    private TenantAdmin scoped(String tenant) {
        return JobSearch.DEFAULT_TENANT.equals(tenant) ? admin.forDefaultTenant() : admin.forTenant(tenant);
    }

    private static void checkAction(String action) {
        if (!"replay".equals(action) && !"purge".equals(action)) {
            throw new IllegalArgumentException("Unknown dead-letter action '" + action + "': replay or purge.");
        }
    }
}
