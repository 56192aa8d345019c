package dev.postbox.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Writes {@code <name>.json} (machine-readable counts) and {@code <name>.md} (counts, timeline, latency). */
final class Report {

    private static final int TIMELINE_LIMIT = 400;

    private final ChaosConfig config;
    private final ChaosResult result;
    private final Timeline timeline;

    Report(ChaosConfig config, ChaosResult result, Timeline timeline) {
        this.config = config;
        this.result = result;
        this.timeline = timeline;
    }

    void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(config.name() + ".json"), json(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(config.name() + ".md"), markdown(), StandardCharsets.UTF_8);
    }

    String json() {
        StringBuilder b = new StringBuilder("{\n");
        Map<String, Object> values = result.values();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            b.append("  \"").append(e.getKey()).append("\": ").append(value(e.getValue()));
            b.append(",\n");
        }
        Histogram h = result.latency();
        b.append("  \"enqueueToEffectMillis\": {");
        b.append("\"count\": ").append(h.getTotalCount());
        for (double p : new double[] {50, 90, 99, 99.9, 100}) {
            b.append(", \"p").append(label(p)).append("\": ").append(h.getValueAtPercentile(p));
        }
        b.append("}\n}\n");
        return b.toString();
    }

    private static String label(double p) {
        return p == Math.floor(p) ? Long.toString((long) p) : Double.toString(p).replace('.', '_');
    }

    private static String value(Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(", ");
                }
                first = false;
                b.append('"').append(e.getKey()).append("\": ").append(value(e.getValue()));
            }
            return b.append('}').toString();
        }
        return '"' + String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("# Chaos run `").append(config.name()).append("`\n\n");
        b.append("Verdict: **").append(result.values().get("verdict")).append("**  \n");
        b.append("Seed: `")
                .append(config.seed())
                .append("` (replay: `./mvnw -B -pl chaos-tests verify -Dchaos.seed=")
                .append(config.seed())
                .append("`)  \n");
        b.append("Workers: ")
                .append(config.workload().workers())
                .append(" Spring Boot worker processes (postbox-spring-boot-starter + postbox-delivery-http), ")
                .append(config.engine())
                .append(".  \n");
        b.append("Controls: ")
                .append(config.controls().isEmpty() ? "none" : config.controls())
                .append("  \n");
        b.append("Coverage: ").append(result.values().get("coverage")).append("  \n");
        List<String> failures = Checker.failures(result);
        b.append("Failures: ")
                .append(failures.isEmpty() ? "none" : String.join(", ", failures))
                .append("\n\n");
        b.append("## Counts\n\n| count | value |\n|---|---|\n");
        for (Map.Entry<String, Object> e : result.values().entrySet()) {
            b.append("| ").append(e.getKey()).append(" | ").append(e.getValue()).append(" |\n");
        }
        b.append("\n## Enqueue-to-effect latency (HdrHistogram)\n\n");
        Histogram h = result.latency();
        b.append("Effects measured: ").append(h.getTotalCount()).append("\n\n| percentile | ms |\n|---|---|\n");
        for (double p : new double[] {50, 75, 90, 95, 99, 99.9, 100}) {
            b.append("| p")
                    .append(p == Math.floor(p) ? Long.toString((long) p) : Double.toString(p))
                    .append(" | ")
                    .append(h.getValueAtPercentile(p))
                    .append(" |\n");
        }
        b.append("\n## Fault timeline\n\n| t (s) | event | worker | detail |\n|---|---|---|---|\n");
        List<Timeline.Event> events = timeline.events();
        for (int i = 0; i < events.size() && i < TIMELINE_LIMIT; i++) {
            Timeline.Event e = events.get(i);
            b.append(String.format(
                    java.util.Locale.ROOT,
                    "| %.1f | %s | %s | %s |%n",
                    e.offsetMillis() / 1000.0,
                    e.what(),
                    e.worker(),
                    e.detail()));
        }
        if (events.size() > TIMELINE_LIMIT) {
            b.append("\n(").append(events.size() - TIMELINE_LIMIT).append(" more events not shown)\n");
        }
        return b.toString();
    }
}
