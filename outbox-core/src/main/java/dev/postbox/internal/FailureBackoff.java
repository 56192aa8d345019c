package dev.postbox.internal;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * How one component of the engine (the claim loop, the completion loop, the heartbeat ...) behaves
 * while its database calls fail, typically during an outage:
 *
 * <ul>
 *   <li><b>Backoff with full jitter</b>: after the n-th failure in a row, {@link #failed} returns a
 *       delay drawn from {@code random(0, min(cap, 100 ms × 2^(n-1)))}. Loops that retry on their
 *       own wait that long; scheduled tasks keep their schedule and use only the logging.
 *   <li><b>At most one warning per {@value #WARN_EVERY_SECONDS} s</b>, with the stack trace; the
 *       failures in between are counted and the next warning says how many were not logged.
 *   <li><b>One INFO when it recovers</b> (the first success after a warned failure), with the
 *       number of failures and how long they lasted.
 * </ul>
 *
 * Thread-safe: the job runner's worker threads share one.
 */
final class FailureBackoff {

    static final int WARN_EVERY_SECONDS = 30;
    private static final long WARN_EVERY_NANOS = WARN_EVERY_SECONDS * 1_000_000_000L;
    private static final long BASE_MILLIS = 100;

    /** The cap of loops that poll: this many poll intervals. */
    static final int CAP_POLL_INTERVALS = 10;

    private final Logger log;
    private final String component;
    private final long capMillis;
    private final LongSupplier nanoClock;
    private final @Nullable Random random;

    private volatile boolean failing;
    private int failuresInARow;
    private long failingSince;
    private boolean warnedThisStreak;
    private long lastWarnAt;
    private boolean everWarned;
    private int notLogged;

    /**
     * For a loop that retries on its own after the delay {@link #failed} returns.
     *
     * @param component what failed, as the log lines name it ("Claiming jobs")
     * @param cap the longest delay {@link #failed} returns
     */
    FailureBackoff(Logger log, String component, Duration cap) {
        this(log, component, cap, System::nanoTime, null);
    }

    /** For a task that runs on a fixed schedule: only the logging applies. */
    FailureBackoff(Logger log, String component) {
        this(log, component, Duration.ZERO, System::nanoTime, null);
    }

    /**
     * For tests: a settable clock and a seeded random (or {@code null} for the thread's own); a
     * zero cap means a scheduled task.
     */
    FailureBackoff(Logger log, String component, Duration cap, LongSupplier nanoClock, @Nullable Random random) {
        this.log = log;
        this.component = component;
        this.capMillis = cap.toMillis();
        this.nanoClock = nanoClock;
        this.random = random;
    }

    /** The cap of a loop that polls every {@code pollInterval}. */
    static Duration capFor(Duration pollInterval) {
        return pollInterval.multipliedBy(CAP_POLL_INTERVALS);
    }

    /**
     * Notes a failure and logs it if no warning was logged in the last {@value #WARN_EVERY_SECONDS}
     * s; returns how long to wait before trying again (zero for a scheduled task).
     *
     * @param consequence what happens meanwhile, for the warning ("their leases stay held")
     */
    synchronized Duration failed(Throwable error, String consequence) {
        long now = nanoClock.getAsLong();
        if (!failing) {
            failing = true;
            failuresInARow = 0;
            failingSince = now;
            warnedThisStreak = false;
        }
        failuresInARow++;
        long delay = capMillis == 0 ? 0 : delayMillis(failuresInARow);
        if (!everWarned || now - lastWarnAt >= WARN_EVERY_NANOS) {
            String skipped = notLogged == 0 ? "" : ", " + notLogged + " not logged since the last warning";
            String retry = capMillis == 0 ? "" : "; next try in " + delay + " ms";
            log.warn(
                    "{} failed ({} in a row{}); {}{}. Further failures are logged at most every {} s",
                    component,
                    failuresInARow,
                    skipped,
                    consequence,
                    retry,
                    WARN_EVERY_SECONDS,
                    error);
            everWarned = true;
            lastWarnAt = now;
            warnedThisStreak = true;
            notLogged = 0;
        } else {
            notLogged++;
            log.debug("{} failed again ({} in a row): {}", component, failuresInARow, error.toString());
        }
        return Duration.ofMillis(delay);
    }

    /** Notes a success; after a warned streak of failures, logs that the component recovered. */
    void succeeded() {
        if (!failing) {
            return; // the common case: no lock
        }
        synchronized (this) {
            if (!failing) {
                return;
            }
            failing = false;
            long lasted = (nanoClock.getAsLong() - failingSince) / 1_000_000;
            if (warnedThisStreak) {
                log.info("{} works again after {} failures in {} ms", component, failuresInARow, lasted);
            } else {
                log.debug("{} works again after {} failures in {} ms", component, failuresInARow, lasted);
            }
        }
    }

    private long delayMillis(int failures) {
        long ceiling = BASE_MILLIS << Math.min(failures - 1, 30);
        long bound = Math.min(capMillis, ceiling);
        Random r = random != null ? random : ThreadLocalRandom.current();
        return (long) (r.nextDouble() * (bound + 1));
    }
}
