package dev.postbox.console.internal;

import dev.postbox.Postbox;
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

    private final QueueStore queues;
    private final LastHourStore lastHour;
    private final WorkerStore workers;
    private final Postbox postbox;
    private final ConsoleViews views;
    private final Duration slo;
    private final Duration workerAlive;

    /**
     * @param slo the oldest-due-age SLO (postbox.health.oldest-age-threshold)
     * @param workerAlive how recent a worker's heartbeat must be for it to count as alive
     */
    public OverviewController(
            QueueStore queues,
            LastHourStore lastHour,
            WorkerStore workers,
            Postbox postbox,
            ConsoleViews views,
            Duration slo,
            Duration workerAlive) {
        this.queues = queues;
        this.lastHour = lastHour;
        this.workers = workers;
        this.postbox = postbox;
        this.views = views;
        this.slo = slo;
        this.workerAlive = workerAlive;
    }

    @GetMapping({"", "/"})
    public View overview(@ModelAttribute("console") ConsoleContext console, Model model) {
        List<QueueSummary> summaries = QueueSummary.of(queues.laneCounts(), queues.queueConfigs(), slo);
        List<WorkerStore.Worker> registered = workers.workers(workerAlive);
        model.addAttribute("queues", summaries);
        model.addAttribute("totals", QueueSummary.totals(summaries));
        model.addAttribute("slo", slo);
        model.addAttribute("chart", Chart.of(lastHour.lastHour(), console.fmt()));
        model.addAttribute("workers", registered);
        model.addAttribute(
                "workersAlive",
                registered.stream().filter(WorkerStore.Worker::alive).count());
        model.addAttribute("thisInstance", ThisInstance.of(postbox));
        model.addAttribute("section", "overview");
        return views.page("overview");
    }

    /**
     * The worker of the application serving the console. Its stuck handler threads are known only here,
     * in this process ({@link Postbox#stuckThreads()}): the worker registry does not carry them, so the
     * other workers' are in their own health and metrics.
     *
     * @param stuckThreads handler threads stuck in attempts given up for their time limit
     * @param stuckThreadLimit how many are tolerated before the worker reports itself unhealthy
     */
    public record ThisInstance(String workerId, boolean running, int stuckThreads, int stuckThreadLimit) {

        static ThisInstance of(Postbox postbox) {
            return new ThisInstance(
                    postbox.config().workerId(),
                    postbox.isRunning(),
                    postbox.stuckThreads(),
                    postbox.config().stuckThreadLimit());
        }

        public boolean healthy() {
            return stuckThreads <= stuckThreadLimit;
        }
    }
}
