package dev.postbox.chaos.fleet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One life of a worker process: from its launch to its end, with its own worker id and log file,
 * and the times it spent SIGSTOPped (wall-clock milliseconds, comparable with the markers workers
 * print).
 */
public final class Incarnation {

    /** How an incarnation ended. */
    public enum End {
        /** Still running. */
        RUNNING,
        /** SIGKILLed by the fleet. */
        KILLED,
        /** Exited on its own (crash point, poison job, failure); {@link #exitStatus()} says how. */
        EXITED,
        /** Terminated when the fleet closed. */
        SHUT_DOWN
    }

    /** A SIGSTOP and the SIGCONT that ended it (resumedAtMillis 0 while stopped). */
    public record Stop(long stoppedAtMillis, long resumedAtMillis) {}

    private final String workerId;
    private final WorkerSlot slot;
    private final int number;
    private final Path logFile;
    private final long launchNanos = System.nanoTime();
    private final List<Stop> stops = new ArrayList<>();
    private long pid;
    private long readyNanos = -1;
    private End end = End.RUNNING;
    private int exitStatus = -1;
    private long endedAtMillis;

    Incarnation(String workerId, WorkerSlot slot, int number, Path logFile) {
        this.workerId = workerId;
        this.slot = slot;
        this.number = number;
        this.logFile = logFile;
    }

    public String workerId() {
        return workerId;
    }

    public WorkerSlot slot() {
        return slot;
    }

    /** 1 for the slot's first process, 2 after its first restart, ... */
    public int number() {
        return number;
    }

    public Path logFile() {
        return logFile;
    }

    public synchronized long pid() {
        return pid;
    }

    public synchronized boolean isReady() {
        return readyNanos >= 0;
    }

    /** Milliseconds from launch to READY, or -1. */
    public synchronized long readyAfterMillis() {
        return readyNanos < 0 ? -1 : (readyNanos - launchNanos) / 1_000_000;
    }

    public synchronized End end() {
        return end;
    }

    public synchronized int exitStatus() {
        return exitStatus;
    }

    /** Wall-clock milliseconds when the fleet saw (or caused) the end, or 0 while running. */
    public synchronized long endedAtMillis() {
        return endedAtMillis;
    }

    public synchronized List<Stop> stops() {
        return List.copyOf(stops);
    }

    synchronized void started(long pid) {
        this.pid = pid;
    }

    synchronized void ready() {
        readyNanos = System.nanoTime();
    }

    /** Records the end once; returns false when it had already ended. */
    synchronized boolean ended(End how, int status) {
        if (end != End.RUNNING) {
            return false;
        }
        end = how;
        exitStatus = status;
        endedAtMillis = System.currentTimeMillis();
        return true;
    }

    synchronized void stopped(long atMillis) {
        stops.add(new Stop(atMillis, 0));
    }

    synchronized void resumed(long atMillis) {
        int last = stops.size() - 1;
        if (last >= 0 && stops.get(last).resumedAtMillis() == 0) {
            stops.set(last, new Stop(stops.get(last).stoppedAtMillis(), atMillis));
        }
    }

    @Override
    public String toString() {
        return workerId;
    }
}
