package dev.postbox.spring.internal;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a task on one daemon thread at a fixed delay between {@link #start()} and {@link #stop()};
 * a failing run is logged and the next one still happens. For lifecycle beans that refresh cached
 * values (metric gauges) from the database.
 */
public final class Poller {

    private static final Logger log = LoggerFactory.getLogger(Poller.class);

    private final String threadName;
    private final Duration interval;
    private final Runnable task;
    private final Object lock = new Object();
    private @Nullable ScheduledExecutorService executor;

    /**
     * @param property the configuration property of the interval, named in the validation error
     */
    public Poller(String threadName, Duration interval, String property, Runnable task) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, was " + interval);
        }
        this.threadName = threadName;
        this.interval = interval;
        this.task = task;
    }

    public void start() {
        synchronized (lock) {
            if (executor != null) {
                return;
            }
            ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
            });
            ex.scheduleWithFixedDelay(this::runSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
            executor = ex;
        }
    }

    private void runSafely() {
        try {
            task.run();
        } catch (RuntimeException e) {
            // never let the scheduled task die
            log.warn("{}: refresh failed; next try in {}", threadName, interval, e);
        }
    }

    public void stop() {
        synchronized (lock) {
            if (executor != null) {
                executor.shutdownNow();
                executor = null;
            }
        }
    }

    public boolean isRunning() {
        synchronized (lock) {
            return executor != null;
        }
    }
}
