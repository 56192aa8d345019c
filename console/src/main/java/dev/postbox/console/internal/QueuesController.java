package dev.postbox.console.internal;

import dev.postbox.PostboxAdmin;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/** Queues: counts per lane, pause and resume, the cluster-wide concurrency cap. */
@Controller
public final class QueuesController {

    private final QueueStore store;
    private final PostboxAdmin admin;
    private final ConsoleViews views;
    private final ConsoleActions actions;
    private final Duration slo;

    public QueuesController(
            QueueStore store, PostboxAdmin admin, ConsoleViews views, ConsoleActions actions, Duration slo) {
        this.store = store;
        this.admin = admin;
        this.views = views;
        this.actions = actions;
        this.slo = slo;
    }

    @GetMapping("/queues")
    public View queues(Model model) {
        model.addAttribute("queues", QueueSummary.of(store.laneCounts(), store.queueConfigs(), slo));
        model.addAttribute("slo", slo);
        model.addAttribute("section", "queues");
        return views.page("queues");
    }

    @PostMapping("/queues/{name}/pause")
    public View pause(@PathVariable String name, HttpServletRequest request, RedirectAttributes flash) {
        admin.pause(name);
        return actions.done(request, flash, "pause queue", name, "claiming stopped", "/queues");
    }

    @PostMapping("/queues/{name}/resume")
    public View resume(@PathVariable String name, HttpServletRequest request, RedirectAttributes flash) {
        admin.resume(name);
        return actions.done(request, flash, "resume queue", name, "claiming resumed", "/queues");
    }

    @PostMapping("/queues/{name}/cap")
    public View cap(
            @PathVariable String name,
            @RequestParam(name = "max", required = false) @Nullable String max,
            HttpServletRequest request,
            RedirectAttributes flash) {
        Integer cap = null;
        if (max != null && !max.isBlank()) {
            try {
                cap = Integer.valueOf(max.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("The cap of queue '" + name
                        + "' must be a whole number above zero, or empty for none; was '" + max + "'");
            }
            if (cap < 1) {
                throw new IllegalArgumentException("The cap of queue '" + name
                        + "' must be above zero (pause the queue to stop it), or empty for none; was " + cap);
            }
        }
        admin.setMaxConcurrency(name, cap);
        return actions.done(
                request,
                flash,
                "cap queue",
                name,
                cap == null ? "cap removed" : "at most " + cap + " running at once",
                "/queues");
    }
}
