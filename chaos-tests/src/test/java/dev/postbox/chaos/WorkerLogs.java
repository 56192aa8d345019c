package dev.postbox.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Markers the workers print: stale-token rejections (fenced zombies) and crash points hit. */
record WorkerLogs(long staleTokens, Map<String, Long> crashPoints, long medianStartMillis) {

    static WorkerLogs read(Path dir) throws IOException {
        long stale = 0;
        List<Long> starts = new java.util.ArrayList<>();
        Map<String, Long> crashes = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".log")).toList();
        }
        for (Path file : files) {
            for (String line : Files.readAllLines(file, StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("READY ") && line.contains(" uptimeMs=")) {
                    starts.add(Long.parseLong(
                            line.substring(line.indexOf(" uptimeMs=") + 10).trim()));
                } else if (line.startsWith("STALE ")) {
                    stale++;
                } else if (line.startsWith("CRASHPOINT ")) {
                    String point = line.substring("CRASHPOINT ".length()).split(" ")[0];
                    crashes.merge(point, 1L, Long::sum);
                }
            }
        }
        java.util.Collections.sort(starts);
        return new WorkerLogs(stale, crashes, starts.isEmpty() ? -1 : starts.get(starts.size() / 2));
    }
}
