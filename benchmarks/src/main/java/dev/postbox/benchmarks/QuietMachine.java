package dev.postbox.benchmarks;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For {@code all-quiet}: before each scenario, waits until the one-minute load average is at most
 * {@code bench.quietLoad} (default 1.0), for at most {@code bench.quietWaitMinutes} (default 10);
 * a scenario that starts on a busy machine says so in its result ({@code quietWaitTimedOut}).
 */
final class QuietMachine {

    private static final Logger log = LoggerFactory.getLogger(QuietMachine.class);

    private QuietMachine() {}

    record Wait(double loadAverage, double waitedSeconds, boolean timedOut) {}

    static Wait await() throws InterruptedException {
        double maxLoad = Double.parseDouble(System.getProperty("bench.quietLoad", "1.0"));
        long maxWait = TimeUnit.MINUTES.toNanos(Long.getLong("bench.quietWaitMinutes", 10));
        long t0 = System.nanoTime();
        double load;
        while ((load = Env.loadAverage()) > maxLoad) {
            if (System.nanoTime() - t0 > maxWait) {
                log.warn("load average still {} (> {}) after the longest wait; starting anyway", load, maxLoad);
                return new Wait(load, (System.nanoTime() - t0) / 1e9, true);
            }
            log.info("waiting for a quiet machine: load average {} > {}", load, maxLoad);
            Thread.sleep(10_000);
        }
        return new Wait(load, Env.round((System.nanoTime() - t0) / 1e9, 1), false);
    }
}
