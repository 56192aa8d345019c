package dev.postbox.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/** Schedules: next fires, recent fires and their outcomes, pause and resume. */
@Controller
public final class SchedulesController {

    private static final int NEXT_FIRES = 3;
    private static final int RECENT_FIRES = 8;

    private final ScheduleAdapter schedules;
    private final ConsoleViews views;
    private final ConsoleActions actions;

    public SchedulesController(ScheduleAdapter schedules, ConsoleViews views, ConsoleActions actions) {
        this.schedules = schedules;
        this.views = views;
        this.actions = actions;
    }

    @GetMapping("/schedules")
    public View list(Model model) {
        model.addAttribute("schedules", schedules.schedules(NEXT_FIRES, RECENT_FIRES));
        model.addAttribute("section", "schedules");
        return views.page("schedules");
    }

    @PostMapping("/schedules/{name}/pause")
    public View pause(@PathVariable String name, HttpServletRequest request, RedirectAttributes flash) {
        boolean changed = schedules.pause(name);
        return actions.done(
                request,
                flash,
                "pause schedule",
                name,
                changed ? "no fires until resumed" : "was paused already",
                "/schedules");
    }

    @PostMapping("/schedules/{name}/resume")
    public View resume(@PathVariable String name, HttpServletRequest request, RedirectAttributes flash) {
        boolean changed = schedules.resume(name);
        return actions.done(
                request,
                flash,
                "resume schedule",
                name,
                changed ? "fires missed meanwhile follow its missed-fire policy" : "was not paused",
                "/schedules");
    }
}
