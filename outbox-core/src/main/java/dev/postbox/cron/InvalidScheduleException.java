package dev.postbox.cron;

/**
 * A schedule that cannot be used: an invalid cron expression, an unknown time zone or an invalid
 * field. The message names the schedule, the offending value and what is wrong, for example {@code
 * Schedule 'nightly-report': invalid cron expression '61 * * * *': minute value 61 out of range
 * 0-59. ...}. Thrown at definition time, so a bad schedule fails start-up instead of never firing.
 */
public class InvalidScheduleException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String scheduleName;

    /** Creates the exception; {@code message} is the complete, user-facing message. */
    public InvalidScheduleException(String scheduleName, String message) {
        super(message);
        this.scheduleName = scheduleName;
    }

    /** Creates the exception with the underlying parser failure as cause. */
    public InvalidScheduleException(String scheduleName, String message, Throwable cause) {
        super(message, cause);
        this.scheduleName = scheduleName;
    }

    /** The name of the schedule that is invalid. */
    public String scheduleName() {
        return scheduleName;
    }
}
