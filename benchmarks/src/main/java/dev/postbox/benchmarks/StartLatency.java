package dev.postbox.benchmarks;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Enqueue-commit to handler-start latency of the jobs committed after the warm-up: per sequence
 * number, the stamp when the producer's commit returned and the stamp when a handler began.
 */
record StartLatency(
        Histogram micros, long notStarted, long startedBeforeCommitReturned, long firstCommit, long lastCommit) {

    static StartLatency of(long[] committedAt, long[] startedAt, long warmupEnd) {
        Histogram micros = new Histogram(3_600_000_000L, 3);
        long notStarted = 0;
        long early = 0;
        long first = Long.MAX_VALUE;
        long last = 0;
        for (int seq = 0; seq < committedAt.length; seq++) {
            if (committedAt[seq] == 0 || committedAt[seq] < warmupEnd) {
                continue; // warm-up, or never committed (a rate the producers could not reach)
            }
            first = Math.min(first, committedAt[seq]);
            last = Math.max(last, committedAt[seq]);
            if (seq >= startedAt.length || startedAt[seq] == 0) {
                notStarted++;
                continue;
            }
            long d = startedAt[seq] - committedAt[seq];
            if (d < 0) {
                early++; // the handler began before the producer saw its commit return
                d = 0;
            }
            micros.recordValue(d / 1000);
        }
        return new StartLatency(micros, notStarted, early, first, last);
    }

    /** Jobs committed after the warm-up. */
    long measured() {
        return micros.getTotalCount() + notStarted;
    }

    /** Seconds from the first to the last measured commit. */
    double window() {
        return measured() == 0 ? 0 : (lastCommit - firstCommit) / 1e9;
    }

    /** Commits per second over the window: n commits span n - 1 intervals. */
    double achievedRate() {
        return window() > 0 ? (measured() - 1) / window() : 0;
    }

    double p50Ms() {
        return ms(micros, 50);
    }

    double p99Ms() {
        return ms(micros, 99);
    }

    /** p50/p99/p99.9/max and the counts, into a result. */
    void putInto(Map<String, Object> r) {
        r.put("p50Ms", ms(micros, 50));
        r.put("p99Ms", ms(micros, 99));
        r.put("p999Ms", ms(micros, 99.9));
        r.put("maxMs", Env.round(micros.getMaxValue() / 1000.0, 3));
        r.put("latency", "enqueue commit returned (producer JVM) -> handler start (engine JVM)");
        r.put("notStarted", notStarted);
        r.put("startedBeforeCommitReturned", startedBeforeCommitReturned);
    }

    static double ms(Histogram h, double percentile) {
        return Env.round(h.getValueAtPercentile(percentile) / 1000.0, 3);
    }
}
