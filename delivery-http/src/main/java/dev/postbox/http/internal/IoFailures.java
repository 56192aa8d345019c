package dev.postbox.http.internal;

import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;

/** Looks through an exception's causes and suppressed exceptions (OkHttp attaches failed routes there). */
public final class IoFailures {

    private IoFailures() {}

    /** The SSRF refusal behind a failure, if any. */
    public static Optional<SsrfRefusal> ssrfRefusal(Throwable failure) {
        return find(failure, SsrfRefusal.class);
    }

    /** Whether the failure is a timeout (connect, read, write or whole call). */
    public static boolean isTimeout(Throwable failure) {
        return find(failure, InterruptedIOException.class).isPresent();
    }

    /** A one-line description: the exception type and message, without stack traces. */
    public static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static <T> Optional<T> find(Throwable failure, Class<T> type) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>();
        pending.add(failure);
        while (!pending.isEmpty()) {
            Throwable current = pending.poll();
            if (!seen.add(current)) {
                continue;
            }
            if (type.isInstance(current)) {
                return Optional.of(type.cast(current));
            }
            if (current.getCause() != null) {
                pending.add(current.getCause());
            }
            Collections.addAll(pending, current.getSuppressed());
        }
        return Optional.empty();
    }
}
