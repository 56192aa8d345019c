package dev.postbox.chaos.incident;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the incident's on-call engineer would have seen: events and samples, recorded in {@code
 * System.nanoTime()} and reported in milliseconds after the clock jump (negative: before it).
 */
final class IncidentTimeline {

    /** What the sampler saw at one instant. */
    record Sample(
            long tMs,
            long due,
            long scheduled,
            long running,
            long oldestDueAgeMs,
            long dlqDepth,
            long effects,
            int workerCrashes,
            int workersUp,
            String poison) {}

    /** A moment of the timeline. */
    record Event(long tMs, String source, String what) {}

    private final List<Sample> samples = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private volatile long jumpNanos = -1;

    void jumped(long nanos) {
        jumpNanos = nanos;
    }

    long jumpNanos() {
        return jumpNanos;
    }

    /** Milliseconds after the jump of a {@code System.nanoTime()} instant. */
    long ms(long nanos) {
        return Math.floorDiv(nanos - jumpNanos, 1_000_000L);
    }

    /** An event now. */
    synchronized void event(String source, String what) {
        events.add(new Event(System.nanoTime(), source, what));
    }

    /** An event at a database-derived offset (ms after the jump). */
    synchronized void eventAt(long msAfterJump, String source, String what) {
        events.add(new Event(jumpNanos + msAfterJump * 1_000_000, source, what));
    }

    /** A sample taken at {@code nanos}; its tMs is converted when the run ends. */
    synchronized void sample(Sample s) {
        samples.add(s);
    }

    /** The samples, their times as ms after the jump. */
    synchronized List<Sample> samples() {
        List<Sample> out = new ArrayList<>();
        for (Sample x : samples) {
            out.add(new Sample(
                    ms(x.tMs()),
                    x.due(),
                    x.scheduled(),
                    x.running(),
                    x.oldestDueAgeMs(),
                    x.dlqDepth(),
                    x.effects(),
                    x.workerCrashes(),
                    x.workersUp(),
                    x.poison()));
        }
        return out;
    }

    /** The events, sorted, their times as ms after the jump. */
    synchronized List<Event> events() {
        List<Event> out = new ArrayList<>();
        for (Event e : events) {
            out.add(new Event(ms(e.tMs()), e.source(), e.what()));
        }
        out.sort(Comparator.comparingLong(Event::tMs));
        return out;
    }
}
