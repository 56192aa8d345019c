package dev.postbox.http.inbox;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs rejected webhooks without letting a flood of forged requests flood the log: each rejection at
 * DEBUG, and at most one WARN summary per interval with the count since the last one and the latest
 * reason. Thread-safe.
 */
final class RejectionLog {

    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong sinceSummary = new AtomicLong();
    private final AtomicLong nextSummaryAt;

    RejectionLog(Logger log, long intervalNanos) {
        this.log = log;
        this.intervalNanos = intervalNanos;
        this.nextSummaryAt = new AtomicLong(System.nanoTime());
    }

    void rejected(String reason) {
        if (log.isDebugEnabled()) {
            log.debug("Rejected webhook: {}", reason);
        }
        sinceSummary.incrementAndGet();
        long now = System.nanoTime();
        long due = nextSummaryAt.get();
        if (now - due >= 0 && nextSummaryAt.compareAndSet(due, now + intervalNanos)) {
            long total = sinceSummary.getAndSet(0);
            log.warn(
                    "Rejected {} webhook(s) since the last summary (at most one a minute; DEBUG logs each), the"
                            + " latest: {}",
                    total,
                    reason);
        }
    }
}
