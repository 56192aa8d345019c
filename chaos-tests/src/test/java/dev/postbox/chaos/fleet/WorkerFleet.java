package dev.postbox.chaos.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Supervises K worker processes the way a process manager would: starts them, notices READY in
 * their output, restarts a process as soon as it ends, and lets a driver SIGKILL, SIGSTOP and
 * SIGCONT them. Every (re)start is an {@link Incarnation} with its own log file in {@code logDir}.
 * Both the chaos run and the poison-pill incident drive their workers through it.
 */
public final class WorkerFleet implements AutoCloseable {

    /** The command line of one incarnation (its worker id and log file are set). */
    @FunctionalInterface
    public interface Launcher {
        List<String> command(WorkerSlot slot, Incarnation incarnation);
    }

    /** Told what happens to the workers; called on fleet threads, so implementations synchronise. */
    public interface Listener {
        default void started(Incarnation incarnation) {}

        default void ready(Incarnation incarnation) {}

        /** The process ended on its own (not killed, not shut down); a new incarnation follows. */
        default void exited(Incarnation incarnation, int status) {}

        default void killed(Incarnation incarnation) {}

        /** A signal sent or another moment worth a line in a timeline. */
        default void event(String what, String worker, String detail) {}
    }

    private final String prefix;
    private final Path logDir;
    private final Launcher launcher;
    private final Listener listener;
    private final List<WorkerSlot> slots = new ArrayList<>();
    private final List<Incarnation> incarnations = new ArrayList<>();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(1, r -> {
        Thread t = new Thread(r, "worker-fleet");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closing;

    private WorkerFleet(String prefix, Path logDir, Launcher launcher, Listener listener) {
        this.prefix = prefix;
        this.logDir = logDir;
        this.launcher = launcher;
        this.listener = new Listener() {
            @Override
            public void started(Incarnation i) {
                synchronized (incarnations) {
                    incarnations.add(i);
                }
                listener.started(i);
            }

            @Override
            public void ready(Incarnation i) {
                listener.ready(i);
            }

            @Override
            public void exited(Incarnation i, int status) {
                listener.exited(i, status);
            }

            @Override
            public void killed(Incarnation i) {
                listener.killed(i);
            }

            @Override
            public void event(String what, String worker, String detail) {
                listener.event(what, worker, detail);
            }
        };
    }

    /**
     * Starts {@code size} workers named {@code <prefix>-w<slot>-i<incarnation>}, logging to {@code
     * logDir} (emptied of earlier runs' logs first: markers are counted from these files).
     */
    public static WorkerFleet start(String prefix, int size, Path logDir, Launcher launcher, Listener listener)
            throws IOException {
        Files.createDirectories(logDir);
        try (Stream<Path> old = Files.list(logDir)) {
            for (Path p : old.filter(p -> p.toString().endsWith(".log")).toList()) {
                Files.delete(p);
            }
        }
        WorkerFleet fleet = new WorkerFleet(prefix, logDir, launcher, listener);
        for (int i = 1; i <= size; i++) {
            WorkerSlot slot = new WorkerSlot(fleet, i);
            fleet.slots.add(slot);
            slot.launch();
        }
        fleet.scheduler.scheduleWithFixedDelay(fleet::pollReady, 50, 50, TimeUnit.MILLISECONDS);
        return fleet;
    }

    public List<WorkerSlot> slots() {
        return List.copyOf(slots);
    }

    /** Every incarnation so far, in launch order. */
    public List<Incarnation> incarnations() {
        synchronized (incarnations) {
            return List.copyOf(incarnations);
        }
    }

    public Path logDir() {
        return logDir;
    }

    /** Workers alive, not stopped and READY. */
    public int readyCount() {
        int n = 0;
        for (WorkerSlot s : slots) {
            if (s.ready()) {
                n++;
            }
        }
        return n;
    }

    /** Waits until every worker is READY; false at the timeout. */
    public boolean awaitAllReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (readyCount() < slots.size()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    /** A random READY worker other than {@code except} (may be null), or null when there is none. */
    public WorkerSlot pickReady(SplittableRandom random, WorkerSlot except) {
        List<WorkerSlot> candidates = new ArrayList<>();
        for (WorkerSlot s : slots) {
            if (s != except && s.ready()) {
                candidates.add(s);
            }
        }
        return candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
    }

    /** Resumes every stopped worker (the end of a fault window). */
    public void resumeAll() {
        for (WorkerSlot s : slots) {
            s.resume();
        }
    }

    /** Stops supervising and terminates every worker, in parallel. */
    @Override
    public void close() {
        closing = true;
        scheduler.shutdownNow();
        for (WorkerSlot s : slots) {
            s.terminate();
        }
        try {
            for (WorkerSlot s : slots) {
                s.awaitTermination();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String prefix() {
        return prefix;
    }

    Launcher launcher() {
        return launcher;
    }

    Listener listener() {
        return listener;
    }

    boolean closing() {
        return closing;
    }

    void schedule(Runnable task, Duration delay) {
        if (!closing) {
            scheduler.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void pollReady() {
        for (WorkerSlot s : slots) {
            s.pollReady();
        }
    }
}
