package dev.postbox.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** One or more {@link EngineChild} JVMs on one database, started together and stopped together. */
final class EngineFleet implements SteadyRun.Consumers {

    private static final Duration STARTUP = Duration.ofMinutes(2);

    private final List<ChildJvm> engines = new ArrayList<>();
    private final List<Path> stampFiles = new ArrayList<>();
    private final Path directory;
    private List<Map<String, Object>> results;

    private EngineFleet(Path directory) {
        this.directory = directory;
    }

    /** Starts {@code count} engine JVMs on {@code url} and waits until each has built its engine. */
    static EngineFleet start(String url, int count, int stampCapacity) throws Exception {
        EngineFleet fleet = new EngineFleet(Files.createTempDirectory("postbox-bench-engines"));
        try {
            for (int i = 1; i <= count; i++) {
                Path file = fleet.directory.resolve("engine-" + i + ".stamps");
                fleet.stampFiles.add(file);
                fleet.engines.add(ChildJvm.start(
                        "engine-" + i,
                        EngineChild.class,
                        List.of(),
                        List.of(url, Integer.toString(stampCapacity), file.toString())));
            }
            for (ChildJvm engine : fleet.engines) {
                engine.awaitReady(STARTUP);
            }
            return fleet;
        } catch (Exception e) {
            fleet.close();
            throw e;
        }
    }

    /** {@code engine-1 -> pid}, ... for {@link CpuMeter}. */
    @Override
    public Map<String, Long> pids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (int i = 0; i < engines.size(); i++) {
            pids.put("engine-" + (i + 1), engines.get(i).pid());
        }
        return pids;
    }

    @Override
    public void go() throws IOException {
        for (ChildJvm engine : engines) {
            engine.send("go");
        }
    }

    /** Stops every engine and collects what each reports. */
    @Override
    public List<Map<String, Object>> stop() throws Exception {
        for (ChildJvm engine : engines) {
            engine.send("stop");
        }
        results = new ArrayList<>();
        for (ChildJvm engine : engines) {
            results.add(engine.awaitResult(STARTUP));
        }
        return results;
    }

    long completed() {
        return results.stream()
                .mapToLong(r -> ((Number) r.get("completed")).longValue())
                .sum();
    }

    long lastCompletionNanos() {
        return results.stream()
                .mapToLong(r -> ((Number) r.get("lastCompletionNanos")).longValue())
                .max()
                .orElse(0);
    }

    /** Handler start stamps by sequence number, the earliest over all engines. */
    @Override
    public long[] startStamps() throws IOException {
        long[][] all = new long[stampFiles.size()][];
        for (int i = 0; i < all.length; i++) {
            all[i] = TimeStamps.read(stampFiles.get(i));
        }
        return TimeStamps.earliest(all);
    }

    /** Completions per engine, to see how the work was shared. */
    @Override
    public List<Long> completedPerEngine() {
        return results.stream()
                .map(r -> ((Number) r.get("completed")).longValue())
                .toList();
    }

    @Override
    public void close() throws IOException {
        engines.forEach(ChildJvm::close);
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
