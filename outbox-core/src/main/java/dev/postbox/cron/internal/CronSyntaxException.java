package dev.postbox.cron.internal;

/** What is wrong with a cron expression, in a few words (for example "minute value 61 out of range 0-59"). */
public final class CronSyntaxException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    CronSyntaxException(String problem) {
        super(problem);
    }

    CronSyntaxException(String problem, Throwable cause) {
        super(problem, cause);
    }
}
