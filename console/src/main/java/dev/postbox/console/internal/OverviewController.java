package dev.postbox.console.internal;

import java.time.Duration;
import java.util.List;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.servlet.View;

/** The overview: every queue and lane, the last hour as a chart, the workers. */
@Controller
public final class OverviewController {

    private final ConsoleStore store;
    private final ConsoleViews views;
    private final Duration slo;
    private final Duration workerAlive;

    /**
     * @param slo the oldest-due-age SLO (postbox.health.oldest-age-threshold)
     * @param workerAlive how recent a worker's heartbeat must be for it to count as alive
     */
    public OverviewController(ConsoleStore store, ConsoleViews views, Duration slo, Duration workerAlive) {
        this.store = store;
        this.views = views;
        this.slo = slo;
        this.workerAlive = workerAlive;
    }

    @GetMapping({"", "/"})
    public View overview(@ModelAttribute("console") ConsoleContext console, Model model) {
        List<QueueSummary> queues = QueueSummary.of(store.laneCounts(), store.queueConfigs(), slo);
        List<ConsoleStore.Worker> workers = store.workers(workerAlive);
        model.addAttribute("queues", queues);
        model.addAttribute("totals", QueueSummary.totals(queues));
        model.addAttribute("slo", slo);
        model.addAttribute("chart", Chart.of(store.lastHour(), console.fmt()));
        model.addAttribute("workers", workers);
        model.addAttribute(
                "workersAlive",
                workers.stream().filter(ConsoleStore.Worker::alive).count());
        model.addAttribute("section", "overview");
        return views.page("overview");
    }
}
