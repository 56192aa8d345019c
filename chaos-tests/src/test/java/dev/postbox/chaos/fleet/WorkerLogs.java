package dev.postbox.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Markers the workers print: stale-token rejections (fenced zombies), crash points hit, and start-up
 * times (JVM uptime at READY, and the part spent in {@code SpringApplication.run}).
 */
record WorkerLogs(
        long staleTokens,
        Map<String, Long> crashPoints,
        long medianStartMillis,
        long medianSpringMillis,
        long incarnations) {

    static WorkerLogs read(Path dir) throws IOException {
        long stale = 0;
        List<Long> starts = new ArrayList<>();
        List<Long> springs = new ArrayList<>();
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
                    int spring = line.indexOf(" springMs=");
                    if (spring >= 0) {
                        springs.add(Long.parseLong(line.substring(spring + 10).split(" ")[0]));
                    }
                } else if (line.startsWith("STALE ")) {
                    stale++;
                } else if (line.startsWith("CRASHPOINT ")) {
                    String point = line.substring("CRASHPOINT ".length()).split(" ")[0];
                    crashes.merge(point, 1L, Long::sum);
                }
            }
        }
        return new WorkerLogs(stale, crashes, median(starts), median(springs), files.size());
    }

    private static long median(List<Long> values) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
