package dev.postbox.console.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One queue as the overview and the queues page show it: its lanes' counts, their totals, its
 * configuration and the SLO verdict of its oldest due job.
 */
public record QueueSummary(
        String name,
        boolean paused,
        @Nullable Integer maxConcurrency,
        List<QueueStore.LaneCounts> lanes,
        long pending,
        long scheduled,
        long retrying,
        long running,
        long dead,
        Duration oldestDueAge,
        boolean overSlo) {

    /** Queues by name from lane counts and stored configuration (a configured queue without jobs shows too). */
    public static List<QueueSummary> of(
            List<QueueStore.LaneCounts> lanes, Map<String, QueueStore.QueueConfig> configs, Duration slo) {
        Map<String, List<QueueStore.LaneCounts>> byQueue = new TreeMap<>();
        configs.keySet().forEach(q -> byQueue.put(q, new ArrayList<>()));
        for (QueueStore.LaneCounts l : lanes) {
            byQueue.computeIfAbsent(l.queue(), q -> new ArrayList<>()).add(l);
        }
        List<QueueSummary> out = new ArrayList<>();
        for (Map.Entry<String, List<QueueStore.LaneCounts>> e : byQueue.entrySet()) {
            List<QueueStore.LaneCounts> ls = new ArrayList<>(e.getValue());
            ls.sort(Comparator.comparingInt(QueueStore.LaneCounts::lane).reversed());
            Duration oldest = ls.stream()
                    .map(QueueStore.LaneCounts::oldestDueAge)
                    .max(Comparator.naturalOrder())
                    .orElse(Duration.ZERO);
            QueueStore.QueueConfig config = configs.get(e.getKey());
            out.add(new QueueSummary(
                    e.getKey(),
                    config != null && config.paused(),
                    config == null ? null : config.maxConcurrency(),
                    List.copyOf(ls),
                    ls.stream().mapToLong(QueueStore.LaneCounts::pending).sum(),
                    ls.stream().mapToLong(QueueStore.LaneCounts::scheduled).sum(),
                    ls.stream().mapToLong(QueueStore.LaneCounts::retrying).sum(),
                    ls.stream().mapToLong(QueueStore.LaneCounts::running).sum(),
                    ls.stream().mapToLong(QueueStore.LaneCounts::dead).sum(),
                    oldest,
                    oldest.compareTo(slo) > 0));
        }
        return out;
    }

    /** Totals over all queues, as one row named "all queues". */
    public static Map<String, Long> totals(List<QueueSummary> queues) {
        Map<String, Long> t = new LinkedHashMap<>();
        t.put("pending", queues.stream().mapToLong(QueueSummary::pending).sum());
        t.put("scheduled", queues.stream().mapToLong(QueueSummary::scheduled).sum());
        t.put("retrying", queues.stream().mapToLong(QueueSummary::retrying).sum());
        t.put("running", queues.stream().mapToLong(QueueSummary::running).sum());
        t.put("dead", queues.stream().mapToLong(QueueSummary::dead).sum());
        return t;
    }
}
