package dev.postbox.internal;

import dev.postbox.Job;
import dev.postbox.PostboxInstrumentation;
import dev.postbox.PostboxInstrumentation.AttemptOutcome;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the {@link PostboxInstrumentation} around handler attempts so that its failures never
 * reach a job: a throwing instrumentation is logged (once per failure kind, then at debug) and the
 * attempt runs without it.
 */
final class AttemptInstrumentation {

    private static final Logger log = LoggerFactory.getLogger(AttemptInstrumentation.class);

    private final PostboxInstrumentation instrumentation;
    private volatile boolean warned;

    AttemptInstrumentation(PostboxInstrumentation instrumentation) {
        this.instrumentation = instrumentation;
    }

    PostboxInstrumentation.Attempt started(Job job) {
        try {
            return instrumentation.attemptStarted(job);
        } catch (RuntimeException e) {
            failed("attemptStarted", job, e);
            return PostboxInstrumentation.Attempt.NONE;
        }
    }

    void ended(PostboxInstrumentation.Attempt attempt, Job job, AttemptOutcome outcome, @Nullable Throwable error) {
        try {
            attempt.ended(outcome, error);
        } catch (RuntimeException e) {
            failed("Attempt.ended", job, e);
        }
    }

    private void failed(String call, Job job, RuntimeException e) {
        if (!warned) {
            warned = true;
            log.warn(
                    "PostboxInstrumentation {} failed in {} for job {}; the job is not affected (further failures"
                            + " are logged at debug)",
                    instrumentation.getClass().getName(),
                    call,
                    job.id(),
                    e);
        } else {
            log.debug("PostboxInstrumentation failed in {} for job {}", call, job.id(), e);
        }
    }
}
