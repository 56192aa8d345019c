package dev.postbox.internal;

import dev.postbox.JobOutcome;
import dev.postbox.PermanentJobFailure;
import dev.postbox.RetryJobAfter;
import dev.postbox.SnoozeJob;

/** Reads what a handler threw as the outcome it stands for (the table in {@link JobOutcome}). */
final class Outcomes {

    private Outcomes() {}

    static JobOutcome of(Throwable error) {
        if (error instanceof SnoozeJob snooze) {
            return JobOutcome.snooze(snooze.delay(), String.valueOf(snooze.getMessage()));
        }
        String reason = describe(error);
        if (error instanceof PermanentJobFailure) {
            return JobOutcome.dead(reason);
        }
        if (error instanceof RetryJobAfter retryAfter) {
            return JobOutcome.retry(reason).after(retryAfter.delay());
        }
        return JobOutcome.retry(reason);
    }

    static String describe(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getName() + (message == null ? "" : ": " + message);
    }
}
