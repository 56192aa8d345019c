package dev.postbox.console.internal;

/** A page of something that does not exist (a job, an endpoint, a schedule): answered with 404. */
public final class ConsoleNotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConsoleNotFoundException(String message) {
        super(message, null, false, false);
    }
}
