package dev.postbox.chaos.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One worker position of a {@link WorkerFleet}. Each (re)start is a new {@link Incarnation}; a
 * process that ends for any reason other than the fleet closing is started again at once, as a
 * process supervisor would.
 */
public final class WorkerSlot {

    private final WorkerFleet fleet;
    private final int index;
    private Process process;
    private Incarnation current;
    private int launches;
    private boolean stopped;

    WorkerSlot(WorkerFleet fleet, int index) {
        this.fleet = fleet;
        this.index = index;
    }

    /** 1-based position. */
    public int index() {
        return index;
    }

    /** {@code w<index>}. */
    public String name() {
        return "w" + index;
    }

    public synchronized Incarnation current() {
        return current;
    }

    /** Alive, not stopped, and its worker printed READY. */
    public synchronized boolean ready() {
        return process != null && process.isAlive() && !stopped && current.isReady();
    }

    public synchronized boolean stopped() {
        return stopped;
    }

    synchronized void launch() {
        launches++;
        String workerId = fleet.prefix() + "-w" + index + "-i" + launches;
        Incarnation incarnation =
                new Incarnation(workerId, this, launches, fleet.logDir().resolve(workerId + ".log"));
        try {
            process = new ProcessBuilder(fleet.launcher().command(this, incarnation))
                    .redirectErrorStream(true)
                    .redirectOutput(incarnation.logFile().toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("starting worker " + workerId + " failed", e);
        }
        incarnation.started(process.pid());
        current = incarnation;
        stopped = false;
        Process p = process;
        p.onExit().thenRun(() -> exited(p, incarnation));
        fleet.listener().started(incarnation);
    }

    /** Polled by the fleet: notices READY in the log of an incarnation that is not ready yet. */
    synchronized void pollReady() {
        if (process == null || !process.isAlive() || current.isReady()) {
            return;
        }
        try {
            if (Files.readString(current.logFile(), StandardCharsets.ISO_8859_1).contains("READY ")) {
                current.ready();
                fleet.listener().ready(current);
            }
        } catch (IOException e) {
            // not written yet
        }
    }

    /** SIGKILL, then a new incarnation. */
    public synchronized void kill() throws InterruptedException {
        if (process == null || !process.isAlive() || fleet.closing()) {
            return;
        }
        Incarnation victim = current;
        victim.ended(Incarnation.End.KILLED, 137);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        fleet.listener().event("SIGKILL", name(), victim.workerId() + " pid " + victim.pid());
        fleet.listener().killed(victim);
        launch();
    }

    /** SIGSTOP now, SIGCONT after {@code duration} (unless the process ended or was resumed first). */
    public synchronized void stop(Duration duration) throws InterruptedException {
        if (process == null || !process.isAlive() || stopped || fleet.closing()) {
            return;
        }
        signal("STOP", process.pid());
        stopped = true;
        Incarnation zombie = current;
        zombie.stopped(System.currentTimeMillis());
        fleet.listener().event("SIGSTOP", name(), zombie.workerId() + " for " + duration.toMillis() + " ms");
        fleet.schedule(
                () -> {
                    synchronized (this) {
                        if (current == zombie) {
                            resume();
                        }
                    }
                },
                duration);
    }

    /** SIGCONT, if stopped. */
    public synchronized void resume() {
        if (!stopped) {
            return;
        }
        stopped = false;
        try {
            signal("CONT", process.pid());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        current.resumed(System.currentTimeMillis());
        fleet.listener().event("SIGCONT", name(), current.workerId());
    }

    private synchronized void exited(Process p, Incarnation incarnation) {
        if (p != process || fleet.closing() || !incarnation.ended(Incarnation.End.EXITED, p.exitValue())) {
            return;
        }
        stopped = false;
        fleet.listener().exited(incarnation, p.exitValue());
        launch();
    }

    /** SIGTERM without waiting (the fleet closes every slot in parallel). */
    synchronized void terminate() {
        if (process == null) {
            return;
        }
        if (stopped) {
            resume();
        }
        current.ended(Incarnation.End.SHUT_DOWN, -1);
        process.destroy();
    }

    /** Waits for the terminated process; SIGKILL after 10 s. */
    void awaitTermination() throws InterruptedException {
        Process p;
        synchronized (this) {
            p = process;
        }
        if (p != null && !p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static void signal(String signal, long pid) throws InterruptedException {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("kill -" + signal + " " + pid + " failed", e);
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
