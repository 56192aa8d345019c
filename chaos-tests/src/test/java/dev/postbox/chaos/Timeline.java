package dev.postbox.chaos;

import dev.postbox.chaos.fleet.Incarnation;
import dev.postbox.chaos.fleet.WorkerFleet;
import java.util.ArrayList;
import java.util.List;

/** The run's fault timeline, in offsets from the run's start; also the fleet's listener. */
final class Timeline implements WorkerFleet.Listener {

    record Event(long offsetMillis, long wallMillis, String what, String worker, String detail) {}

    private final List<Event> events = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private final long startWallMillis = System.currentTimeMillis();

    synchronized void add(String what, String worker, String detail) {
        events.add(new Event(
                (System.nanoTime() - startNanos) / 1_000_000, System.currentTimeMillis(), what, worker, detail));
    }

    /** The events from {@code seconds} before each of {@code wallMillis} to 1 s after (around a violating window). */
    synchronized List<String> before(List<Long> wallMillis, int seconds) {
        List<String> out = new ArrayList<>();
        for (long at : wallMillis) {
            StringBuilder b = new StringBuilder("t=" + (at - startWallMillis) / 1000.0 + " s:");
            for (Event e : events) {
                if (e.wallMillis() <= at && e.wallMillis() > at - seconds * 1000L) {
                    b.append(' ')
                            .append(e.what())
                            .append('@')
                            .append(e.worker())
                            .append(" (-")
                            .append(at - e.wallMillis())
                            .append(" ms)");
                }
            }
            out.add(b.toString());
        }
        return out;
    }

    synchronized List<Event> events() {
        return List.copyOf(events);
    }

    @Override
    public void started(Incarnation i) {
        add("start", i.slot().name(), i.workerId() + " pid " + i.pid());
    }

    @Override
    public void exited(Incarnation i, int status) {
        CrashPoints.Point point = CrashPoints.Point.byExitStatus(status);
        add(
                point != null ? "crash point " + point.label : "unexpected exit " + status,
                i.slot().name(),
                i.workerId());
    }

    @Override
    public void event(String what, String worker, String detail) {
        add(what, worker, detail);
    }
}
