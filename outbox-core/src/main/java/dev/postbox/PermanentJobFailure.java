package dev.postbox;

/** Thrown by a handler when retrying cannot help: the job goes to the dead letters at once. */
public class PermanentJobFailure extends RuntimeException {

    public PermanentJobFailure(String message) {
        super(message);
    }

    public PermanentJobFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
