package dev.postbox.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The harness's side of {@link FloorConsumerChild}: one consumer JVM, started, told to go, stopped. */
final class FloorConsumer implements SteadyRun.Consumers {

    static final String LABEL = "floor-consumer";
    private static final Duration STARTUP = Duration.ofMinutes(2);

    private final ChildJvm child;
    private final Path directory;
    private final Path stamps;
    private Map<String, Object> result = Map.of();

    private FloorConsumer(ChildJvm child, Path directory, Path stamps) {
        this.child = child;
        this.directory = directory;
        this.stamps = stamps;
    }

    static FloorConsumer start(String url, int stampCapacity) throws Exception {
        Path directory = Files.createTempDirectory("postbox-bench-floor-consumer");
        Path stamps = directory.resolve("consumer.stamps");
        ChildJvm child = ChildJvm.start(
                LABEL,
                FloorConsumerChild.class,
                List.of(),
                List.of(url, Integer.toString(stampCapacity), stamps.toString()));
        FloorConsumer consumer = new FloorConsumer(child, directory, stamps);
        try {
            child.awaitReady(STARTUP);
            return consumer;
        } catch (Exception e) {
            consumer.close();
            throw e;
        }
    }

    @Override
    public Map<String, Long> pids() {
        return Map.of(LABEL, child.pid());
    }

    @Override
    public void go() throws IOException {
        child.send("go");
    }

    @Override
    public List<Map<String, Object>> stop() throws Exception {
        child.send("stop");
        result = child.awaitResult(STARTUP);
        if (result.get("failure") != null) {
            throw new IllegalStateException("floor consumer failed: " + result.get("failure"));
        }
        return List.of(result);
    }

    @Override
    public long[] startStamps() throws IOException {
        return TimeStamps.read(stamps);
    }

    @Override
    public List<Long> completedPerEngine() {
        Object completed = result.get("completed");
        return List.of(completed instanceof Number n ? n.longValue() : 0L);
    }

    @Override
    public void close() throws IOException {
        child.close();
        Files.deleteIfExists(stamps);
        Files.deleteIfExists(directory);
    }
}
