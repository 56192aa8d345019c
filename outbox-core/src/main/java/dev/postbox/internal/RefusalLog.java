package dev.postbox.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs refused requests without letting a flood of them flood the log: each refusal at DEBUG, and
 * at most one WARN summary per interval with the count since the last one and the latest reason.
 * Shared by Postbox's modules that answer requests from outside (the webhook inbox, the console).
 * Thread-safe.
 */
public final class RefusalLog {

    private final Logger log;
    private final String what;
    private final long intervalNanos;
    private final String every;
    private final AtomicLong sinceSummary = new AtomicLong();
    private final AtomicLong nextSummaryAt;

    /**
     * @param what what is refused, plural form in the summary, e.g. "webhook(s)"
     * @param interval at most one WARN per this interval (zero: every refusal is a WARN)
     */
    public RefusalLog(Logger log, String what, Duration interval) {
        this.log = log;
        this.what = what;
        this.intervalNanos = interval.toNanos();
        this.every = interval.equals(Duration.ofMinutes(1)) ? "a minute" : "every " + interval;
        this.nextSummaryAt = new AtomicLong(System.nanoTime());
    }

    /** One refusal; {@code reason} must hold no secret and be on one line. */
    public void refused(String reason) {
        if (log.isDebugEnabled()) {
            log.debug("Rejected {}: {}", what, reason);
        }
        sinceSummary.incrementAndGet();
        long now = System.nanoTime();
        long due = nextSummaryAt.get();
        if (now - due >= 0 && nextSummaryAt.compareAndSet(due, now + intervalNanos)) {
            long total = sinceSummary.getAndSet(0);
            log.warn(
                    "Rejected {} {} since the last summary (at most one {}; DEBUG logs each), the latest: {}",
                    total,
                    what,
                    every,
                    reason);
        }
    }
}
