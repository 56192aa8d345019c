package dev.postbox;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Wraps the engine's units of work for tracing and timing: each enqueue call and each handler
 * attempt. Unlike a {@link PostboxListener}, which hears about events after the fact, an
 * instrumentation is around the work, on the thread that does it, so that it can make its span the
 * current one while the work runs and pass a trace context from the producer to the handler through
 * the job's headers.
 *
 * <p>The core knows no tracing library; {@link #NO_OP} is the default. The Spring Boot starter
 * implements this with Micrometer's Observation API (see {@code docs/tracing.md}).
 *
 * <p>Implementations must not throw from {@link #attemptStarted} or {@link Attempt#ended}: the engine
 * logs and ignores such failures, a job's outcome never depends on its instrumentation.
 */
public interface PostboxInstrumentation {

    /** An instrumentation that does nothing. */
    PostboxInstrumentation NO_OP = new PostboxInstrumentation() {};

    /**
     * Around one enqueue call, on the caller's thread and in its transaction. An implementation
     * calls {@code write} exactly once, with the same requests in the same order, optionally with
     * headers added (the current trace context), and returns its results (or lets its exception
     * pass).
     */
    default List<EnqueueResult> enqueue(List<JobRequest> requests, EnqueueWrite write) {
        return write.write(requests);
    }

    /**
     * One attempt of {@code job}'s handler starts now, on the thread that runs it. The returned
     * attempt is {@linkplain Attempt#ended ended} on the same thread once the attempt's outcome is
     * known.
     */
    default Attempt attemptStarted(Job job) {
        return Attempt.NONE;
    }

    /** Writes the (possibly amended) requests; the engine's insert. */
    @FunctionalInterface
    interface EnqueueWrite {
        List<EnqueueResult> write(List<JobRequest> requests);
    }

    /** A running handler attempt, told its outcome once. */
    @FunctionalInterface
    interface Attempt {

        /** An attempt that records nothing. */
        Attempt NONE = (outcome, error) -> {};

        /**
         * The attempt ended.
         *
         * @param error what the handler threw, or null when it returned normally
         */
        void ended(AttemptOutcome outcome, @Nullable Throwable error);
    }

    /** What became of a handler attempt. */
    enum AttemptOutcome {
        /** The handler returned; the job is done (its completion may still be in a batch). */
        SUCCESS,
        /** The handler failed; the job runs again after its backoff. */
        RETRY,
        /** The handler failed for good or spent the job's budget; the job is dead-lettered. */
        DEAD,
        /** The handler asked to run later ({@link SnoozeJob}); no attempt was spent. */
        SNOOZED,
        /** The claim's lease was taken over while the handler ran; nothing this attempt did committed. */
        LEASE_LOST,
        /** Writing the outcome failed; the job runs again when its lease expires. */
        UNRECORDED,
        /**
         * The attempt ran past its time limit and was given up (charged, then retried or
         * dead-lettered); reported when its handler comes back, with what it threw.
         */
        TIMED_OUT;

        /** The tag value: lower case, words joined by {@code -} (e.g. {@code lease-lost}). */
        public String tagValue() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }
}
