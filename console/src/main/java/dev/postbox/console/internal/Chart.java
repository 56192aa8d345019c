package dev.postbox.console.internal;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The overview's chart of the last hour, drawn on the server as SVG bars: one bar per minute for
 * jobs done, with the minute's failed attempts over it. No script, no chart library.
 */
public record Chart(
        int width,
        int height,
        long max,
        List<Bar> bars,
        long done,
        long failed,
        long dead,
        String firstLabel,
        String lastLabel) {

    /** One minute's bar: geometry in SVG units and the numbers for its tooltip. */
    public record Bar(int x, int width, int doneY, int doneHeight, int failedY, int failedHeight, String title) {}

    static final int WIDTH = 720;
    static final int HEIGHT = 110;

    public static Chart of(List<LastHourStore.Minute> minutes, Formats fmt) {
        long max = 1;
        for (LastHourStore.Minute m : minutes) {
            max = Math.max(max, Math.max(m.done(), m.failed()));
        }
        int n = Math.max(1, minutes.size());
        int slot = WIDTH / n;
        int barWidth = Math.max(1, slot - 2);
        List<Bar> bars = new ArrayList<>();
        long done = 0;
        long failed = 0;
        long dead = 0;
        for (int i = 0; i < minutes.size(); i++) {
            LastHourStore.Minute m = minutes.get(i);
            int dh = scale(m.done(), max);
            int fh = scale(m.failed(), max);
            bars.add(new Bar(
                    i * slot,
                    barWidth,
                    HEIGHT - dh,
                    dh,
                    HEIGHT - fh,
                    fh,
                    fmt.minute(m.minute()) + " UTC: " + fmt.count(m.done()) + " done, " + fmt.count(m.failed())
                            + " failed attempts, " + fmt.count(m.dead()) + " dead"));
            done += m.done();
            failed += m.failed();
            dead += m.dead();
        }
        String first = minutes.isEmpty() ? "" : fmt.minute(minutes.get(0).minute());
        String last = minutes.isEmpty()
                ? ""
                : fmt.minute(minutes.get(minutes.size() - 1).minute());
        return new Chart(WIDTH, HEIGHT, max, bars, done, failed, dead, first, last);
    }

    private static int scale(long value, long max) {
        if (value <= 0) {
            return 0;
        }
        return Math.max(1, (int) Math.round((double) value * HEIGHT / max));
    }

    /** Failed attempts among done jobs and failed attempts; null without traffic. */
    public @Nullable Double failureRate() {
        long total = done + failed;
        return total == 0 ? null : (double) failed / total;
    }
}
