package dev.postbox.internal;

import dev.postbox.Job;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One structured line per attempt on logger {@code dev.postbox.attempt}: job id, kind, queue,
 * attempt, outcome, duration and trace id, as {@code key=value} pairs. Failures and attempts slower
 * than the threshold are logged at INFO, other successes at DEBUG (enable it to see every
 * attempt). Payloads are never logged.
 */
final class AttemptLogger {

    private static final Logger log = LoggerFactory.getLogger("dev.postbox.attempt");
    private static final String LINE = "job={} kind={} queue={} attempt={} outcome={} durationMs={} traceId={}";

    private final Duration slowThreshold;

    AttemptLogger(Duration slowThreshold) {
        this.slowThreshold = slowThreshold;
    }

    void log(Job job, String outcome, Duration took, @Nullable String error) {
        String traceId = traceId(job);
        if (error != null) {
            log.info(
                    LINE + " error=\"{}\"",
                    job.id(),
                    job.kind(),
                    job.queue(),
                    job.attempt(),
                    outcome,
                    took.toMillis(),
                    traceId,
                    error);
        } else if (took.compareTo(slowThreshold) >= 0) {
            log.info(
                    LINE + " slow=true",
                    job.id(),
                    job.kind(),
                    job.queue(),
                    job.attempt(),
                    outcome,
                    took.toMillis(),
                    traceId);
        } else if (log.isDebugEnabled()) {
            log.debug(LINE, job.id(), job.kind(), job.queue(), job.attempt(), outcome, took.toMillis(), traceId);
        }
    }

    /** The trace id of a W3C {@code traceparent} header ({@code 00-<trace-id>-<span-id>-<flags>}), or "-". */
    static String traceId(Job job) {
        String traceparent = job.headers().get("traceparent");
        if (traceparent != null && traceparent.length() >= 35 && traceparent.charAt(2) == '-') {
            return traceparent.substring(3, 35);
        }
        return "-";
    }
}
