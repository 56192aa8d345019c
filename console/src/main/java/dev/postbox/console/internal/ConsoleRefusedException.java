package dev.postbox.console.internal;

/**
 * A request the console refused: 401 when no user is authenticated, 403 otherwise (read-only
 * console, missing role, bad CSRF token).
 */
public final class ConsoleRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean authenticated;

    public ConsoleRefusedException(String message) {
        this(message, true);
    }

    public ConsoleRefusedException(String message, boolean authenticated) {
        super(message, null, false, false);
        this.authenticated = authenticated;
    }

    /** Whether the refused user was authenticated (403) or not (401). */
    public boolean authenticated() {
        return authenticated;
    }
}
