package dev.postbox.chaos.incident;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.ObjectMapper;

/**
 * Writes {@code incident-timeline.json} (every sample, event and value of each run) and {@code
 * incident-timeline.md} (the same for people: summary, timeline of events, the samples).
 */
final class IncidentReport {

    private IncidentReport() {}

    static void write(List<IncidentRun.Result> runs, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("incident-timeline.json"), json(runs), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("incident-timeline.md"), markdown(runs), StandardCharsets.UTF_8);
    }

    static String json(List<IncidentRun.Result> runs) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (IncidentRun.Result r : runs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("values", r.values());
            m.put("events", r.events());
            m.put("samples", r.samples());
            out.add(m);
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("scenario", "poison-pill incident (reproduced in the chaos harness, not a production event)");
        root.put("timeBase", "every tMs / *AtMs is milliseconds after the clock jump (negative: before it)");
        root.put("runs", out);
        return new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }

    static String markdown(List<IncidentRun.Result> runs) {
        StringBuilder b = new StringBuilder();
        b.append("# Poison-pill incident: timeline\n\n");
        b.append("Reproduced scenario (`PoisonPillIncidentTest`), not a production event. Times are seconds")
                .append(" after the clock jump that made every job due at once.\n\n");
        for (IncidentRun.Result r : runs) {
            Map<String, Object> v = r.values();
            b.append("## Run `")
                    .append(v.get("name"))
                    .append("`: ")
                    .append(v.get("description"))
                    .append("\n\n");
            b.append("| value | |\n|---|---|\n");
            for (Map.Entry<String, Object> e : v.entrySet()) {
                if (e.getKey().equals("poisonAttempts")
                        || e.getKey().endsWith("Histogram100ms")
                        || e.getKey().equals("description")
                        || e.getKey().equals("name")) {
                    continue;
                }
                b.append("| ")
                        .append(e.getKey())
                        .append(" | ")
                        .append(cell(e.getValue()))
                        .append(" |\n");
            }
            b.append("\n### Events\n\n| t (s) | source | event |\n|---:|---|---|\n");
            for (IncidentTimeline.Event e : r.events()) {
                b.append("| ")
                        .append(seconds(e.tMs()))
                        .append(" | ")
                        .append(e.source())
                        .append(" | ")
                        .append(e.what().replace("|", "\\|"))
                        .append(" |\n");
            }
            b.append("\n### Samples (every 500 ms)\n\n");
            b.append("| t (s) | oldest due age (s) | due | scheduled | running | DLQ depth | effects |")
                    .append(" worker crashes | workers up | poison (state attempts/budget) |\n");
            b.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (IncidentTimeline.Sample s : r.samples()) {
                b.append("| ")
                        .append(seconds(s.tMs()))
                        .append(" | ")
                        .append(seconds(s.oldestDueAgeMs()))
                        .append(" | ")
                        .append(s.due())
                        .append(" | ")
                        .append(s.scheduled())
                        .append(" | ")
                        .append(s.running())
                        .append(" | ")
                        .append(s.dlqDepth())
                        .append(" | ")
                        .append(s.effects())
                        .append(" | ")
                        .append(s.workerCrashes())
                        .append(" | ")
                        .append(s.workersUp())
                        .append(" | ")
                        .append(s.poison())
                        .append(" |\n");
            }
            Object failed = v.get("flakyFailedHistogram100ms");
            Object due = v.get("flakyRetryDueHistogram100ms");
            if (failed instanceof Map<?, ?> f && due instanceof Map<?, ?> d && !d.isEmpty()) {
                b.append("\n### Flaky jobs per 100 ms bucket: first attempt failed (F), retry due (R)\n\n");
                b.append("Bucket start in ms after the jump. R is the run_at full jitter gave the retry.\n\n```\n");
                java.util.TreeSet<Long> keys = new java.util.TreeSet<>();
                f.keySet().forEach(k -> keys.add(Long.parseLong((String) k)));
                d.keySet().forEach(k -> keys.add(Long.parseLong((String) k)));
                for (long k : keys) {
                    int nf = f.get(Long.toString(k)) instanceof Number x ? x.intValue() : 0;
                    int nd = d.get(Long.toString(k)) instanceof Number x ? x.intValue() : 0;
                    b.append(String.format(
                            Locale.ROOT,
                            "%7d F %3d %-40s R %3d %s%n",
                            k,
                            nf,
                            "#".repeat(nf / 2),
                            nd,
                            "#".repeat(nd / 2)));
                }
                b.append("```\n");
            }
            b.append("\n");
        }
        return b.toString();
    }

    private static String cell(Object v) {
        return String.valueOf(v).replace("|", "\\|").replace("\n", " ");
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.1f", ms / 1000.0);
    }
}
