package dev.postbox.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Writes the JSON result files and the Markdown summary built from whatever JSON files exist. */
final class Results {

    private static final JsonMapper JSON =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private Results() {}

    /** {@code bench.results}, else {@code benchmarks/target/results} from the repository root. */
    static Path defaultDirectory() {
        String configured = System.getProperty("bench.results");
        if (configured != null) {
            return Path.of(configured);
        }
        Path cwd = Path.of("").toAbsolutePath();
        if (Files.isDirectory(cwd.resolve("benchmarks"))) {
            return cwd.resolve("benchmarks/target/results");
        }
        return cwd.resolve("target/results");
    }

    static void write(Path dir, Map<String, Object> result) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(result.get("scenario") + ".json");
        Files.writeString(file, JSON.writeValueAsString(result) + "\n");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> readAll(Path dir) throws IOException {
        Map<String, Map<String, Object>> all = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return all;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                Map<String, Object> r = JSON.readValue(Files.readString(f), Map.class);
                all.put((String) r.get("scenario"), r);
            }
        }
        return all;
    }

    static void writeSummary(Path dir) throws IOException {
        Map<String, Map<String, Object>> all = readAll(dir);
        StringBuilder md = new StringBuilder();
        md.append("# Postbox benchmark results\n\n");
        Map<String, Object> any = all.values().stream().findFirst().orElse(Map.of());
        md.append("Machine: ")
                .append(any.get("cpuCount"))
                .append(" CPUs, PostgreSQL ")
                .append(any.get("postgresVersion"))
                .append(", Java ")
                .append(any.get("javaVersion"))
                .append(", commit `")
                .append(any.get("gitCommit"))
                .append(Boolean.TRUE.equals(any.get("gitDirty")) ? "` (work tree had uncommitted changes)" : "`")
                .append(".\n\n");
        md.append("| scenario | jobs | seconds | jobs/s | p50 ms | p99 ms | p99.9 ms | ratio to floor | ratio to peer |"
                + " load avg | notes |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (String name : order(all)) {
            Map<String, Object> r = all.get(name);
            md.append("| ")
                    .append(name)
                    .append(" | ")
                    .append(cell(r.get("jobs")))
                    .append(" | ")
                    .append(cell(r.get("seconds")))
                    .append(" | ")
                    .append(cell(r.get("jobsPerSecond")))
                    .append(" | ")
                    .append(cell(r.get("p50Ms")))
                    .append(" | ")
                    .append(cell(r.get("p99Ms")))
                    .append(" | ")
                    .append(cell(r.get("p999Ms")))
                    .append(" | ")
                    .append(cell(r.get("ratioToFloor")))
                    .append(" | ")
                    .append(cell(r.get("ratioToPeer")))
                    .append(" | ")
                    .append(cell(r.get("loadAverageAtEnd")))
                    .append(" | ")
                    .append(r.get("notes") == null ? "" : r.get("notes"))
                    .append(" |\n");
        }
        md.append("\n## Targets\n\n");
        for (String line : Targets.check(all)) {
            md.append("- ").append(line).append('\n');
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.md"), md.toString());
    }

    private static List<String> order(Map<String, Map<String, Object>> all) {
        List<String> names = new ArrayList<>();
        for (String prefix : Bench.ALL) {
            for (String name : all.keySet()) {
                if ((name.equals(prefix) || name.startsWith(prefix + "-")) && !names.contains(name)) {
                    names.add(name);
                }
            }
        }
        for (String name : all.keySet()) {
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    private static String cell(Object value) {
        if (value == null) {
            return "–";
        }
        if (value instanceof Double d) {
            if (d >= 1000) {
                return String.format("%,.0f", d);
            }
            return String.format("%.3g", d);
        }
        if (value instanceof Number n) {
            return String.format("%,d", n.longValue());
        }
        return value.toString();
    }
}
