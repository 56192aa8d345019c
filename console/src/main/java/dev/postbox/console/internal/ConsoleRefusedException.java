package dev.postbox.console.internal;

/** A write the console refused (read-only, missing role, bad CSRF token): answered with 403. */
public final class ConsoleRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConsoleRefusedException(String message) {
        super(message, null, false, false);
    }
}
