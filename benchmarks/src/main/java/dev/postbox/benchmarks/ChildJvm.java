package dev.postbox.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A child JVM of the harness (producers, engines, the memory drain, the webhook receiver) and the
 * line protocol both sides speak: the child prints {@value #READY} (optionally followed by a word,
 * such as its URL) when set up, then reads commands ({@code go}, {@code stop}) from its standard
 * input, and prints one {@value #RESULT} line with a JSON object before it exits. Every {@code
 * bench.*} system property of the parent is passed on, so engine settings apply to children too.
 */
final class ChildJvm implements AutoCloseable {

    static final String READY = "POSTBOX-BENCH-READY";
    static final String RESULT = "POSTBOX-BENCH-RESULT ";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final BufferedReader STDIN =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    private final CompletableFuture<Map<String, Object>> result = new CompletableFuture<>();
    private final StringBuilder tail = new StringBuilder();

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readOutput, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} in a new JVM with the given JVM options (after the parent's {@code bench.*}
     * properties, so a {@code -D} here wins) and program arguments.
     */
    static ChildJvm start(String name, Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:+ExitOnOutOfMemoryError");
        for (String property : System.getProperties().stringPropertyNames()) {
            if (property.startsWith("bench.")) {
                command.add("-D" + property + "=" + System.getProperty(property));
            }
        }
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        return new ChildJvm(
                name, new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    long pid() {
        return process.pid();
    }

    /** Waits for the child's ready line; returns what followed {@value #READY} on it (may be empty). */
    String awaitReady(Duration timeout) throws Exception {
        return await(ready, timeout, "ready");
    }

    void send(String command) throws IOException {
        stdin.write(command + "\n");
        stdin.flush();
    }

    /** Waits for the result line (the child may still be running: some wait for {@code stop} after it). */
    Map<String, Object> awaitResult(Duration timeout) throws Exception {
        return await(result, timeout, "its result");
    }

    int exitCode() throws InterruptedException {
        process.waitFor(30, TimeUnit.SECONDS);
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** The last lines the child printed that were not protocol lines (its log), for failure reports. */
    synchronized String outputTail() {
        return tail.toString();
    }

    private <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws Exception {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "child " + name + " gave no " + what + " within " + timeout + "; its output:\n" + outputTail());
        }
    }

    @SuppressWarnings("unchecked")
    private void readOutput() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(READY)) {
                    ready.complete(line.substring(READY.length()).trim());
                } else if (line.startsWith(RESULT)) {
                    result.complete(JSON.readValue(line.substring(RESULT.length()), Map.class));
                } else {
                    synchronized (this) {
                        tail.append(line).append('\n');
                        if (tail.length() > 20_000) {
                            tail.delete(0, tail.length() - 10_000);
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            result.completeExceptionally(e);
        }
        String failure = "child " + name + " exited before it was done; its output:\n" + outputTail();
        ready.completeExceptionally(new IllegalStateException(failure));
        result.completeExceptionally(new IllegalStateException(failure));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    // --- the child's side of the protocol ---

    static void ready(String word) {
        System.out.println(READY + (word.isEmpty() ? "" : " " + word));
        System.out.flush();
    }

    /** Blocks until the parent sends {@code expected}; a closed standard input (the parent died) exits. */
    static void awaitCommand(String expected) throws IOException {
        String line;
        while ((line = STDIN.readLine()) != null) {
            if (line.trim().equals(expected)) {
                return;
            }
        }
        System.exit(3);
    }

    /** The next line from the parent (for values that must not appear on the command line). */
    static String readLine() throws IOException {
        String line = STDIN.readLine();
        if (line == null) {
            System.exit(3);
        }
        return line;
    }

    static void result(Map<String, Object> result) {
        System.out.println(RESULT + JSON.writeValueAsString(result));
        System.out.flush();
    }
}
